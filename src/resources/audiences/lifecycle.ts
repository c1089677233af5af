import { invalidState } from '../../shared/errors.ts';
import type { VersionState } from './tables.ts';

/**
 * A version's life, as the one table of the moves it may make. Generation takes a queued or
 * pending version to processing (processing again when a worker that died is taken over), then to
 * a draft, or back to pending after a failed attempt; any unfinished version may be cancelled; a
 * draft is published. Published and cancelled are final (a published version that is replaced
 * becomes obsolete, and an archived audience's versions archived, by their timestamps, not states).
 */
export const TRANSITIONS: Readonly<Record<VersionState, readonly VersionState[]>> = {
  queued: ['processing', 'cancelled'],
  pending: ['processing', 'cancelled'],
  processing: ['processing', 'pending', 'draft', 'cancelled'],
  draft: ['published'],
  published: [],
  cancelled: [],
};

const STATES = Object.keys(TRANSITIONS) as VersionState[];

export function allows(from: VersionState, to: VersionState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The states a version may be in to move to `to`: the condition of the update that moves it. */
export function statesLeadingTo(to: VersionState): VersionState[] {
  return STATES.filter((from) => allows(from, to));
}

/**
 * Checks a move before it is made: 409 (`invalid_state`) when the table does not allow it. `version`
 * names the version for the message ("The latest version of audience …").
 */
export function move(from: VersionState, to: VersionState, version: string): VersionState {
  if (!allows(from, to)) throw invalidState(`${version} is ${from}; it cannot become ${to}`);
  return to;
}

/** The versions whose generation is not over: those that may still be cancelled. */
export const UNFINISHED: readonly VersionState[] = statesLeadingTo('cancelled');
