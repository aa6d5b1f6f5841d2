import { useCallback, useEffect, useRef } from 'react';
import { useBlocker, useLocation, type Location } from 'react-router-dom';

/** The question asked before unsaved edits are left behind. */
export const UNSAVED_MESSAGE = 'You have unsaved changes. Leave without saving?';

export interface UnsavedPromptOptions {
  /** The question of the confirm box (default UNSAVED_MESSAGE). */
  message?: string;
  /**
   * Which navigations leave the edits behind (default: a change of path or query string; a change of
   * the hash alone never asks). Return false for moves inside the form, e.g. a tab kept in `?tab=`.
   */
  isLeaving?: (from: Location, to: Location) => boolean;
}

export interface UnsavedPrompt {
  /**
   * Let the next navigation pass without asking: call it right before navigating away after a
   * successful save (the `dirty` flag of this render may still be true). It lasts until the location
   * changes or `dirty` turns true again.
   */
  allowNext(): void;
  /**
   * Ask now (closing a dialog, a Cancel button): true when there is nothing to lose or the user
   * agreed; then the navigation that follows (if any) is not asked again.
   */
  confirmLeave(): boolean;
}

const defaultLeaving = (from: Location, to: Location) => from.pathname !== to.pathname || from.search !== to.search;

/**
 * Asks before unsaved edits are lost: router navigation (menu links, back/forward, `navigate()`)
 * through react-router's `useBlocker`, which asks with the browser's confirm box (OK leaves, Cancel
 * stays), and closing or reloading the tab through `beforeunload` (the browser's own question).
 *
 *   const dirty = JSON.stringify(form) !== JSON.stringify(saved);
 *   const unsaved = useUnsavedPrompt(dirty);
 *   ...after a successful save: unsaved.allowNext(); navigate('/list');
 *
 * Needs the data router (App uses createBrowserRouter): useBlocker throws under <BrowserRouter>.
 */
export function useUnsavedPrompt(dirty: boolean, opts: UnsavedPromptOptions = {}): UnsavedPrompt {
  const message = opts.message ?? UNSAVED_MESSAGE;
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;
  const bypass = useRef(false);
  const isLeavingRef = useRef(opts.isLeaving ?? defaultLeaving);
  isLeavingRef.current = opts.isLeaving ?? defaultLeaving;

  const blocker = useBlocker(
    useCallback(
      ({ currentLocation, nextLocation }: { currentLocation: Location; nextLocation: Location }) =>
        dirtyRef.current && !bypass.current && isLeavingRef.current(currentLocation, nextLocation),
      [],
    ),
  );

  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    if (window.confirm(message)) blocker.proceed();
    else blocker.reset();
  }, [blocker, message]);

  // A navigation that was let through ends the bypass, and so do new edits.
  const location = useLocation();
  useEffect(() => {
    bypass.current = false;
  }, [location.key]);
  useEffect(() => {
    if (dirty) bypass.current = false;
  }, [dirty]);

  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [dirty]);

  const allowNext = useCallback(() => {
    bypass.current = true;
  }, []);
  const confirmLeave = useCallback(() => {
    if (!dirtyRef.current) return true;
    if (!window.confirm(message)) return false;
    bypass.current = true;
    return true;
  }, [message]);
  return { allowNext, confirmLeave };
}
