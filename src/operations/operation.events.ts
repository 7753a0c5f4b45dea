/** The events the operations area declares (platform/live/events.ts knows no topic of its own). */
declare module '../platform/live/events' {
  interface EventTopics {
    /** A tool operation moved on: a step submitted, or it ended. */
    'operation.updated': { operationId: string; principalId: string; status: string; step: number };
  }
}

export {};
