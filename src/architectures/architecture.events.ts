/** The events the architectures area declares (platform/live/events.ts knows no topic of its own). */
declare module '../platform/live/events' {
  interface EventTopics {
    /** An architecture changed: `change` names what (a node, an edge, the layout...), `subjectId` the thing. */
    'architecture.changed': { architectureId: string; slug: string; change: string; subjectId: string | null; actorId: string };
  }
}

export {};
