import { describe, expect, it } from 'vitest';
import type { VersionContent } from '../../src/resources/audiences/schema.ts';
import { mentionsOf } from '../../src/workflows/person-erasure/mentions.ts';
import {
  contentWithout,
  metadataWithout,
  textWithout,
} from '../../src/workflows/person-erasure/redaction.ts';

/** What a person's erasure finds of them in a text, and what it leaves (docs/security.md#erasure). */

const person = (fields: Partial<Parameters<typeof mentionsOf>[0]> = {}) =>
  mentionsOf({
    name: 'Jane Doe',
    slug: 'jane-doe',
    email: 'Jane.Doe@globex.example',
    phoneNumber: '+14155550123',
    linkedinProfileUrl: 'https://www.linkedin.com/in/jane-doe-globex/',
    ...fields,
  });

describe('what names a person', () => {
  const jane = person();

  it('is their full name in any case or spelling, and each word of it written as a name', () => {
    for (const text of ['Jane', "Doe's plan", 'JANE DOE', 'see /p/acme/jane-doe', '**Jane**, hi'])
      expect(jane(text), text).toBe(true);
    for (const text of ['Janet', 'Does it work?', 'jane', 'A plan for you.'])
      expect(jane(text), text).toBe(false);
    const initial = person({ name: 'J Doe', slug: 'j-doe' });
    expect(initial('Hello J. Doe')).toBe(true);
    expect(initial('Plan J is ready.')).toBe(false);
  });

  it('is a name word that is also a common word only where it is written as a name', () => {
    const will = person({ name: 'Will Grant', slug: 'will-grant' });
    expect(will('We will grant access to every store.')).toBe(false);
    expect(will('Will, here is your plan.')).toBe(true);
    expect(will('Thanks, Will Grant.')).toBe(true);
    expect(will('/p/acme/will-grant')).toBe(true);
  });

  it('is their name without its accents, or a script without capitals', () => {
    expect(person({ name: 'José Núñez', slug: 'jose-nunez' })('Hola Jose')).toBe(true);
    expect(person({ name: 'Jose Nunez', slug: 'jose-nunez' })('Para José Núñez')).toBe(true);
    expect(person({ name: '山田 太郎', slug: 'person' })('太郎 さん')).toBe(true);
  });

  it('is the name they were created with, which their slug keeps', () => {
    const renamed = person({ name: 'Jane Smith', slug: 'jane-doe-2' });
    expect(renamed('See /p/acme/jane-doe-2')).toBe(true);
    expect(person({ name: 'Jane Smith', slug: 'jane-doe-2' })('Met JANE DOE at the expo')).toBe(true);
  });

  it('is their email in any case, URL-encoded too, their profile URL and their phone in any writing', () => {
    for (const text of [
      'Write to jane.doe@GLOBEX.example',
      '[mail](mailto:jane.doe%40globex.example)',
      'linkedin.com/in/jane-doe-globex',
      'Call +1 415 555 0123.',
      'Call (415) 555-0123.',
      'Call 415.555.0123.',
      'Call 0014155550123.',
    ])
      expect(jane(text), text).toBe(true);
    for (const text of ['Call 555-0199.', 'Orders up 5550124%? No: 12 stores.', 'Since 2019.'])
      expect(jane(text), text).toBe(false);
  });
});

describe('a text without the person', () => {
  const jane = person();

  it('loses each sentence that names them, whole, and nothing else', () => {
    expect(textWithout('Jane, see how it works. Alerts cut gaps! Ask Doe? Plans start now.', jane)).toBe(
      'Alerts cut gaps! Plans start now.',
    );
    expect(textWithout('Nothing here names anyone.  Spaces stay.', jane)).toBe(
      'Nothing here names anyone.  Spaces stay.',
    );
    expect(textWithout('Jane Doe', jane)).toBe('');
  });

  it('keeps the marks of markdown lines, drops lines left empty and closes up blank runs', () => {
    const markdown = [
      '## For Jane',
      '',
      'Alerts cut gaps. Jane asked about pilots.',
      '',
      '- Call +1 (415) 555-0123.',
      '- Pilots start within a week.',
      '1. Jane first.',
      '2. Then the team.',
      '',
      '> Jane said so.',
      '',
      'The end.',
    ].join('\n');
    expect(textWithout(markdown, jane)).toBe(
      ['Alerts cut gaps.', '', '- Pilots start within a week.', '2. Then the team.', '', 'The end.'].join(
        '\n',
      ),
    );
  });

  it('leaves metadata without the fields and keywords that named them', () => {
    expect(
      metadataWithout(
        { title: 'A plan for Jane', description: 'Pricing. For Jane Doe.', keywords: ['retail', 'Jane Doe'] },
        jane,
      ),
    ).toEqual({ description: 'Pricing.', keywords: ['retail'] });
    expect(metadataWithout({ title: 'Jane' }, jane)).toBeUndefined();
  });
});

describe('a version without the person', () => {
  const jane = person();
  const baseline: VersionContent = {
    headline: 'Spring launch',
    subheadline: '',
    sections: [],
    actions: [{ actionId: 'demo', buttonTitle: 'Book a demo', purpose: '', url: 'https://example.com/demo' }],
    metadata: {},
  };

  it("falls back to the page's own headline, button and URL, and drops a section it emptied", () => {
    const content: VersionContent = {
      headline: 'Jane, here is your plan',
      subheadline: 'Made for Jane. Shelf alerts for every store.',
      sections: [
        { heading: 'For Jane', body: 'A plan of your own.' },
        { heading: 'Pilots', body: 'Jane asked.' },
        { heading: 'Results', body: 'Gaps down by half.' },
      ],
      actions: [
        {
          actionId: 'demo',
          buttonTitle: 'Book a demo, Jane',
          purpose: 'Talk to Jane.',
          url: 'https://example.com/demo?email=jane.doe%40globex.example',
        },
      ],
      metadata: { title: 'For Jane', description: 'Shelf alerts.' },
    };
    expect(contentWithout(content, baseline, jane)).toEqual({
      headline: 'Spring launch',
      subheadline: 'Shelf alerts for every store.',
      sections: [{ heading: 'Results', body: 'Gaps down by half.' }],
      actions: [
        { actionId: 'demo', buttonTitle: 'Book a demo', purpose: '', url: 'https://example.com/demo' },
      ],
      metadata: { description: 'Shelf alerts.' },
    });
  });

  it('is the same copy when nothing in it names them', () => {
    const content: VersionContent = { ...baseline, sections: [{ heading: 'Results', body: 'Gaps down.' }] };
    expect(contentWithout(content, baseline, jane)).toEqual(content);
  });
});
