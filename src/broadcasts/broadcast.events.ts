/** The events the broadcasts area declares (platform/live/events.ts knows no topic of its own). */
declare module '../platform/live/events' {
  interface EventTopics {
    /** `recipientCount`: how many inbox rows the broadcast wrote (absent from older senders). */
    'inbox.delivered': { broadcastId: string; recipientCount?: number };
  }
}

export {};
