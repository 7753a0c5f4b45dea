import { useSearchParams, type NavigateOptions } from 'react-router-dom';

/**
 * The page's state kept in its URL's query (a link shares the view). `update` starts from the URL as it is
 * when it runs, not from the render that made the handler: two changes close together (typing a search,
 * then choosing a tag) each keep the other's, where the hook's own setter, called from a handler of an
 * earlier render, would put back the query that render saw.
 */
export function useUrlState(): [URLSearchParams, (changes: Record<string, string | null | undefined>, options?: NavigateOptions) => void] {
  const [params, setParams] = useSearchParams();
  const update = (changes: Record<string, string | null | undefined>, options?: NavigateOptions) => {
    const next = new URLSearchParams(window.location.search);
    for (const [name, value] of Object.entries(changes)) {
      if (value) next.set(name, value);
      else next.delete(name);
    }
    setParams(next, options);
  };
  return [params, update];
}
