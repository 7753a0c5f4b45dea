/**
 * The events the blueprint area declares (platform/live/events.ts knows no topic of its own): what happened to a
 * blueprint, published by every area that changes one and heard by `blueprintActivity` subscribers.
 */
export enum BlueprintActivityKind {
  FORKED = 'forked',
  STARRED = 'starred',
  UNSTARRED = 'unstarred',
  VERSION = 'version',
  CHANGELOG = 'changelog',
  /** Name, description, tags or visibility changed (PATCH). */
  EDITED = 'edited',
  /** The blueprint was deleted (subscribers then get NOT_FOUND). */
  DELETED = 'deleted',
  /** Moved into, between or out of teams; `subjectId` is the receiving team (null: out of its team). */
  TRANSFERRED = 'transferred',
  /** A proposal to this blueprint opened (or reopened); `subjectId` is the proposal. */
  PROPOSAL_OPENED = 'proposal_opened',
  PROPOSAL_COMMENTED = 'proposal_commented',
  PROPOSAL_MERGED = 'proposal_merged',
  PROPOSAL_CLOSED = 'proposal_closed',
}

declare module '../platform/live/events' {
  interface EventTopics {
    'blueprint.activity': {
      blueprintId: string;
      kind: `${BlueprintActivityKind}`;
      subjectId: string | null;
      actorId: string;
      /** Proposal events: the proposal's source, which only receivers who may read it hear about. */
      sourceId?: string;
      /**
       * Set by the outbox at insert (broadcasts/activity-live.ts): whether every blueprint the event names
       * was public when the write committed. Then every listener may see all of it, without a read.
       */
      open?: boolean;
    };
  }
}
