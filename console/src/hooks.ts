import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type Failure, failureOf } from './api.ts';
import { type OperationId, type OperationSchema, operationSchema } from './operation-schemas.ts';

export interface Loaded<T> {
  data: T | undefined;
  failure: Failure | null;
  loading: boolean;
  /** Loads again, keeping the current data on screen meanwhile. */
  reload: () => Promise<void>;
  /** Replaces the data with an answer the view already has (after a write). */
  set: (data: T) => void;
}

/**
 * Data that `load` fetches, loaded again whenever `deps` change; a slower earlier answer never
 * overwrites a later one.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);
  const reload = useCallback(async () => {
    const call = ++latest.current;
    setLoading(true);
    try {
      const answer = await load();
      if (call !== latest.current) return;
      setData(answer);
      setFailure(null);
    } catch (error) {
      if (call === latest.current) setFailure(failureOf(error));
    } finally {
      if (call === latest.current) setLoading(false);
    }
  }, deps);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, failure, loading, reload, set: setData };
}

export interface Action<A extends unknown[]> {
  run: (...args: A) => Promise<void>;
  pending: boolean;
  failure: Failure | null;
  /** The last run succeeded (until the next one starts): a form says so beside its button. */
  done: boolean;
  clear: () => void;
}

/** A write the user starts (a button, a form): pending while it runs, its problem kept for display. */
export function useAction<A extends unknown[]>(act: (...args: A) => Promise<void>): Action<A> {
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [done, setDone] = useState(false);
  const run = async (...args: A) => {
    setPending(true);
    setFailure(null);
    setDone(false);
    try {
      await act(...args);
      setDone(true);
    } catch (error) {
      setFailure(failureOf(error));
    } finally {
      setPending(false);
    }
  };
  return { run, pending, failure, done, clear: () => setFailure(null) };
}

/** Calls `tick` every `ms` while `active`: live progress without a reload. */
export function useInterval(tick: () => void, ms: number, active: boolean): void {
  const latestTick = useRef(tick);
  latestTick.current = tick;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => latestTick.current(), ms);
    return () => clearInterval(timer);
  }, [ms, active]);
}

/** `value`, once it has stayed the same for `ms` (search as you type, without a request per key). */
export function useDebounced<T>(value: T, ms = 250): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * The schemas of `operationId` once the API's document is read (operation-schemas.ts); undefined
 * until then, or without one. Without the document a form still works: its inputs just state no
 * limits before the API does.
 */
export function useOperationSchema(operationId: OperationId | undefined): OperationSchema | undefined {
  return useLoad(async () => (operationId ? operationSchema(operationId) : undefined), [operationId]).data;
}
