import { useSyncExternalStore } from 'react';
import { MOBILE_BREAKPOINT_PX } from '../../contracts/constants.js';

/** True while the media query matches. */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (cb) => {
      const m = window.matchMedia(query);
      m.addEventListener('change', cb);
      return () => m.removeEventListener('change', cb);
    },
    () => window.matchMedia(query).matches,
    () => false,
  );
}

/** The mobile layout of 000 §2 / 001 §9: width 992 px or less. */
export const MOBILE_QUERY = `(max-width: ${MOBILE_BREAKPOINT_PX}px)`;
export const useIsMobile = () => useMediaQuery(MOBILE_QUERY);
