import { Compile } from 'typebox/compile';
import type { PageMetadata } from '../../http/page-metadata.ts';
import {
  type VersionContent,
  VersionContent as VersionContentSchema,
} from '../../resources/audiences/schema.ts';
import type { Page } from '../../resources/pages/schema.ts';
import type { Topic } from '../../resources/topics/schema.ts';

/** Everything a personalizer may draw on for one version. */
export interface PersonalizationInput {
  page: Page;
  audience: {
    name: string;
    supplementaryContext: string;
    isNewPageAgent: boolean;
    actionUrlOverride: string | null;
    metadata: PageMetadata | undefined;
  };
  person: { name: string } | null;
  account: { name: string | null; domain: string } | null;
  topics: Topic[];
}

/** Turns a page and what is known of its audience into a version's content. */
export interface Personalizer {
  readonly name: string;
  personalize(input: PersonalizationInput): Promise<VersionContent>;
}

const SECTION_LIMIT = 600;

function firstSentence(text: string): string {
  const match = text.match(/^.*?[.!?](\s|$)/s);
  return (match ? match[0] : text).trim();
}

function clip(text: string, limit: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  return clean.length <= limit ? clean : `${clean.slice(0, limit - 1).replace(/\s+\S*$/, '')}…`;
}

function actionsOf(page: Page, urlOverride: string | null): VersionContent['actions'] {
  return page.actions.map((action) => ({
    actionId: action.actionId,
    buttonTitle: action.buttonTitle,
    purpose: action.purpose,
    url: urlOverride ?? action.url,
  }));
}

/** Version 0: the page as it is, for every visitor. */
export function baselineContent(page: Page): VersionContent {
  return {
    headline: page.title,
    subheadline: firstSentence(page.pageContext),
    sections: [{ heading: page.name, body: page.pageContext }],
    actions: actionsOf(page, null),
    metadata: page.metadata ?? {},
  };
}

/**
 * The built-in personalizer: deterministic and offline. It addresses the person and their company,
 * opens with why the page matters to them (page context and the audience's own context), and
 * draws one section from each of the tenant's topics.
 */
export const builtInPersonalizer: Personalizer = {
  name: 'built-in',
  async personalize({ page, audience, person, account, topics }) {
    const company = account ? (account.name ?? account.domain) : undefined;
    // The name, not the title: a title often carries a site suffix ("… | Brand") made for the tab.
    const firstName = person?.name.split(/\s+/)[0];
    const headline = company
      ? `${firstName ? `${firstName}, here` : 'Here'} is ${page.name} for ${company}`
      : firstName
        ? `${firstName}, ${page.name}`
        : page.title;
    const why = [page.pageContext, audience.supplementaryContext].filter(Boolean).join('\n\n');
    const sections = [
      { heading: company ? `Why ${company}` : 'Why this matters to you', body: why },
      ...topics
        .filter((topic) => topic.entries.length > 0)
        .map((topic) => ({
          heading: topic.title,
          body: clip(topic.entries.map((entry) => entry.content.content).join(' '), SECTION_LIMIT),
        })),
    ];
    const subheadline = firstSentence(page.pageContext);
    return {
      headline,
      subheadline,
      sections,
      actions: actionsOf(page, audience.actionUrlOverride),
      metadata: {
        ...audience.metadata,
        title: audience.metadata?.title ?? headline,
        description: audience.metadata?.description ?? subheadline,
      },
    };
  },
};

const checkContent = Compile(VersionContentSchema);

export interface ChatCompletionsOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs?: number;
}

function prompt(input: PersonalizationInput): string {
  return JSON.stringify({
    task: 'Write a personalized version of this marketing page for the audience. Keep every actionId.',
    answerShape: {
      headline: 'string',
      subheadline: 'string',
      sections: [{ heading: 'string', body: 'string' }],
      actions: [{ actionId: 'string', buttonTitle: 'string', purpose: 'string', url: 'string' }],
      metadata: { title: 'string', description: 'string' },
    },
    page: {
      title: input.page.title,
      context: input.page.pageContext,
      type: input.page.pageType,
      actions: actionsOf(input.page, input.audience.actionUrlOverride),
    },
    audience: { name: input.audience.name, context: input.audience.supplementaryContext },
    person: input.person,
    account: input.account,
    knowledge: input.topics.map((topic) => ({
      title: topic.title,
      purpose: topic.purpose,
      entries: topic.entries.map((entry) => entry.content.content),
    })),
  });
}

/** A personalizer backed by an OpenAI-compatible chat-completions endpoint that answers JSON. */
export function chatCompletionsPersonalizer(options: ChatCompletionsOptions): Personalizer {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  return {
    name: 'chat-completions',
    async personalize(input) {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: options.model,
          response_format: { type: 'json_object' },
          messages: [
            {
              role: 'system',
              content: 'You personalize B2B marketing pages. Answer with one JSON object only.',
            },
            { role: 'user', content: prompt(input) },
          ],
        }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
      });
      if (!response.ok) throw new Error(`The language model answered ${response.status}`);
      const body = (await response.json()) as { choices?: { message?: { content?: string } }[] };
      const text = body.choices?.[0]?.message?.content;
      if (!text) throw new Error('The language model answered without content');
      const content: unknown = JSON.parse(text);
      if (!checkContent.Check(content))
        throw new Error('The language model answered content of the wrong shape');
      return content;
    },
  };
}
