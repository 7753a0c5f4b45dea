/** The events the broadcasts area declares (platform/events.ts knows no topic of its own). */
declare module '../platform/events' {
  interface EventTopics {
    /** `recipientCount`: how many inbox rows the broadcast wrote (absent from older senders). */
    'inbox.delivered': { broadcastId: string; recipientCount?: number };
  }
}

export {};
