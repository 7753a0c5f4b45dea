import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { useQuery, useSubscription } from 'urql';
import { useOtherTabs, type TabMessage } from './tabs';
import { BroadcastReceivedDocument, UnreadCountDocument, type InboxEntryFragment } from './generated/graphql';

interface InboxLive {
  unread: number;
  /** Deliveries received live since the page opened, newest first. */
  arrived: InboxEntryFragment[];
  refreshUnread(): void;
}

const InboxContext = createContext<InboxLive>({ unread: 0, arrived: [], refreshUnread: () => undefined });

export const useInboxLive = () => useContext(InboxContext);

/** One `broadcastReceived` subscription for the whole app: it feeds the badge and the inbox page. */
export function InboxLiveProvider({ children }: { children: ReactNode }) {
  const [{ data }, reexecute] = useQuery({ query: UnreadCountDocument, requestPolicy: 'cache-and-network' });
  const [arrived, setArrived] = useState<InboxEntryFragment[]>([]);
  const [live] = useSubscription({ query: BroadcastReceivedDocument, variables: {} });
  const refreshUnread = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);
  // A read mark made in another tab changes this tab's badge too.
  useOtherTabs(
    useCallback(
      (m: TabMessage) => {
        if (m.kind === 'inbox-read') refreshUnread();
      },
      [refreshUnread],
    ),
  );

  useEffect(() => {
    const item = live.data?.broadcastReceived;
    if (!item) return;
    setArrived((list) => (list.some((i) => i.id === item.id) ? list : [item, ...list]));
    refreshUnread();
  }, [live.data, refreshUnread]);

  return <InboxContext.Provider value={{ unread: data?.inbox.totalCount ?? 0, arrived, refreshUnread }}>{children}</InboxContext.Provider>;
}
