/** The events the operations area declares (platform/events.ts knows no topic of its own). */
declare module '../platform/events' {
  interface EventTopics {
    /** A tool operation moved on: a step submitted, or it ended. */
    'operation.updated': { operationId: string; principalId: string; status: string; step: number };
  }
}

export {};
