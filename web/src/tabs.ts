import { useEffect } from 'react';

/**
 * What one tab tells the others of the same console (same origin): a star or a read mark changes counts
 * the other tabs show, and the server sends them no event for the viewer's own marks. BroadcastChannel
 * reaches every tab of this origin except the sender.
 */
export type TabMessage = { kind: 'inbox-read' } | { kind: 'blueprint-changed'; id: string };

const channel: BroadcastChannel | null = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel('blueprint-workshop');

export function tellOtherTabs(message: TabMessage): void {
  channel?.postMessage(message);
}

/** Calls `handler` for each message another tab sends. */
export function useOtherTabs(handler: (message: TabMessage) => void): void {
  useEffect(() => {
    if (!channel) return;
    const listener = (e: MessageEvent<TabMessage>) => handler(e.data);
    channel.addEventListener('message', listener);
    return () => channel.removeEventListener('message', listener);
  }, [handler]);
}
