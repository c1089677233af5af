import { describe, expect, it } from 'vitest';
import {
  allows,
  move,
  statesLeadingTo,
  TRANSITIONS,
  UNFINISHED,
} from '../../src/resources/audiences/lifecycle.ts';
import { AppError } from '../../src/shared/errors.ts';

describe('the version lifecycle', () => {
  it('holds the moves generation, publishing and cancelling make, and no other', () => {
    expect(TRANSITIONS).toEqual({
      queued: ['processing', 'cancelled'],
      pending: ['processing', 'cancelled'],
      processing: ['processing', 'pending', 'draft', 'cancelled'],
      draft: ['published'],
      published: [],
      cancelled: [],
    });
    expect(allows('draft', 'published')).toBe(true);
    expect(allows('queued', 'draft')).toBe(false);
  });

  it('derives the unfinished states, and where each move may start, from the table', () => {
    expect([...UNFINISHED].sort()).toEqual(['pending', 'processing', 'queued']);
    expect(statesLeadingTo('processing').sort()).toEqual(['pending', 'processing', 'queued']);
    expect(statesLeadingTo('published')).toEqual(['draft']);
    expect(statesLeadingTo('queued')).toEqual([]);
  });

  it('refuses a move the table does not allow with invalid_state', () => {
    expect(move('processing', 'draft', 'Version 1')).toBe('draft');
    const refused = (() => {
      try {
        move('published', 'cancelled', 'Version 1');
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({
      code: 'invalid_state',
      message: 'Version 1 is published; it cannot become cancelled',
    });
  });
});
