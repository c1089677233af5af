import { type Static, Type } from 'typebox';
import { MAX_HEADLINE, MAX_SECTIONS, MAX_SUBHEADLINE } from '../personalization/check.ts';

/**
 * Bounds on edited copy beyond the check's, generous enough for any copy generation writes (a
 * heading may hold a person's and a company's name, a body several topic entries).
 */
const MAX_HEADING = 1000;
const MAX_BODY = 65536;

const Section = Type.Object(
  {
    heading: Type.String({ minLength: 1, maxLength: MAX_HEADING }),
    body: Type.String({
      minLength: 1,
      maxLength: MAX_BODY,
      description: "Safe markdown: paragraphs, lists, bold, italic, and links to the page's actions only",
    }),
  },
  { additionalProperties: false },
);

/** The parts of a version's copy that an edit may replace; the actions and metadata are the page's. */
export const EDITABLE = ['headline', 'subheadline', 'sections'] as const;

export const AudienceVersionUpdate = Type.Object(
  {
    content: Type.Object(
      {
        headline: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_HEADLINE })),
        subheadline: Type.Optional(
          Type.String({ maxLength: MAX_SUBHEADLINE, description: 'Empty for no subheadline' }),
        ),
        sections: Type.Optional(
          Type.Array(Section, {
            maxItems: MAX_SECTIONS,
            description: 'Replaces every section, in order; empty for none',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  {
    title: 'AudienceVersionUpdate',
    description:
      'Omitted parts stay as they are. The edit passes the check generated copy passes (docs/personalization.md#editing-a-version)',
    examples: [
      {
        content: {
          headline: 'How Northwind Outfitters launches spring pages in a day',
          sections: [
            {
              heading: 'On brand on every page',
              body: 'Every page follows your **brand profile**: your colors, your logo, your voice.',
            },
          ],
        },
      },
    ],
    additionalProperties: false,
  },
);
export type AudienceVersionUpdate = Static<typeof AudienceVersionUpdate>;
