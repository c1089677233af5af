import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { MAX_HEADLINE, MAX_SECTIONS, MAX_SUBHEADLINE } from './check.ts';
import { actionsFor, metadataFor } from './compose.ts';
import type { PersonalizationInput } from './input.ts';
import { companyName, firstName } from './names.ts';
import { type Personalizer, rankKnowledge, UnusableAnswer } from './personalizer.ts';

/**
 * A personalizer backed by an OpenAI-compatible chat-completions endpoint: OpenAI itself, or a
 * local Ollama or llama.cpp server. It asks for structured output (a JSON schema), gives the model
 * only the page's brand's topics and voice, and tells it the private guidance is not copy; the
 * check stage judges its answer all the same.
 */

export interface ChatCompletionsOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs?: number;
}

/**
 * What the model writes; the page's actions and metadata are added to it as they are. No length
 * limits here (structured outputs do not all take them): the check stage holds the answer to them.
 */
const Answer = Type.Object(
  {
    headline: Type.String({
      description: `One natural sentence or phrase, under ${MAX_HEADLINE} characters`,
    }),
    subheadline: Type.String({ description: 'One or two sentences' }),
    sections: Type.Array(
      Type.Object(
        {
          heading: Type.String(),
          body: Type.String({
            description: "Markdown: paragraphs, lists, bold, italic; links only to the page's action URLs",
          }),
        },
        { additionalProperties: false },
      ),
      { description: `At most ${MAX_SECTIONS}` },
    ),
  },
  { additionalProperties: false },
);
type Answer = Static<typeof Answer>;
const answerCheck = Compile(Answer);

/** The JSON schema the model is held to, in the form structured outputs take (every field required, nothing else). */
const ANSWER_FORMAT = {
  type: 'json_schema',
  json_schema: { name: 'page_version', strict: true, schema: JSON.parse(JSON.stringify(Answer)) as object },
};

const SYSTEM = [
  'You write the copy of a B2B landing page for one audience, on behalf of the brand named in the request.',
  "Follow the brand's voice. Draw only on the page and the brand's knowledge. Write natural sentences.",
  'The private guidance (the audience context and the notes about the person) and the audience company decide what the page stresses:',
  '`focus` names the knowledge topics most relevant to this audience, most relevant first;',
  'the first section answers what the guidance stresses most, and the subheadline and the first sentence of each section speak to this audience and its concerns.',
  'The guidance is private: never quote, paraphrase or mention it, nor say how you know; name the topic instead.',
  'On a call_followup page, the notes say what the conversation was about: the page follows up on those topics, by their names.',
  'When `previousVersion` is given, write a fresh alternative to it: another choice, order or phrasing of the knowledge.',
  `At most ${MAX_SECTIONS} sections, none repeating the headline or subheadline; a headline under ${MAX_HEADLINE} characters, a subheadline under ${MAX_SUBHEADLINE}.`,
  'Speak to the visitor: never describe the page or how it was made (no "chosen for you", "this page", "personalized", "based on your profile").',
  'Never mention a subject the guidance rules out; `knowledge` already leaves it out.',
  "Link only to the page's action URLs. Answer with JSON only.",
].join(' ');

/** The titles of the topics whose passages the built-in personalizer ranks best for this audience, best first. */
function focusOf(input: PersonalizationInput): string[] {
  const titles = new Set<string>();
  for (const { passage } of rankKnowledge(input)) {
    if (titles.size === MAX_SECTIONS) break;
    if (passage.copy()) titles.add(passage.topic.title);
  }
  return [...titles];
}

function request(input: PersonalizationInput) {
  const { page } = input;
  return {
    brand: input.brand ? { name: input.brand.name, voice: input.brand.voice } : { name: null, voice: null },
    page: {
      name: page.name,
      type: page.pageType,
      context: page.pageContext,
      description: page.metadata?.description ?? null,
      actions: page.actions.map((action) => ({
        buttonTitle: action.buttonTitle,
        purpose: action.purpose,
        url: input.audience.actionUrlOverride ?? action.url,
      })),
    },
    audience: {
      person: input.person ? { firstName: firstName(input.person.name), name: input.person.name } : null,
      company: input.account ? companyName(input.account) : null,
    },
    privateGuidance: { context: input.private.context, notes: input.private.notes },
    focus: focusOf(input),
    knowledge: input.topics.map((topic) => ({
      title: topic.title,
      purpose: topic.purpose,
      entries: topic.entries.map((entry) => entry.content.content),
    })),
    ...(input.version.previous
      ? {
          previousVersion: {
            headline: input.version.previous.headline,
            subheadline: input.version.previous.subheadline,
            sections: input.version.previous.sections,
          },
        }
      : {}),
  };
}

function parseAnswer(text: string | undefined): Answer {
  if (!text) throw new UnusableAnswer('the model answered without content');
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new UnusableAnswer('the model answered something that is not JSON');
  }
  if (!answerCheck.Check(answer)) throw new UnusableAnswer('the model answered JSON of the wrong shape');
  return answer;
}

export function chatCompletionsPersonalizer(options: ChatCompletionsOptions): Personalizer {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  return {
    name: options.model,
    async personalize(input) {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: options.model,
          response_format: ANSWER_FORMAT,
          messages: [
            { role: 'system', content: SYSTEM },
            { role: 'user', content: JSON.stringify(request(input)) },
          ],
        }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
      }).catch((error: unknown) => {
        // Said in words a version's note can carry: no address of the model's server.
        const timedOut = error instanceof Error && error.name === 'TimeoutError';
        throw new Error(`The language model ${timedOut ? 'did not answer in time' : 'could not be reached'}`);
      });
      if (!response.ok) throw new Error(`The language model answered ${response.status}`);
      const body = (await response.json().catch(() => ({}))) as {
        choices?: { message?: { content?: string } }[];
      };
      const answer = parseAnswer(body.choices?.[0]?.message?.content);
      return {
        ...answer,
        actions: actionsFor(input),
        metadata: metadataFor(input, answer.headline, answer.subheadline),
      };
    },
  };
}
