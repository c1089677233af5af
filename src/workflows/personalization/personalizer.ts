import type { VersionContent } from '../../resources/audiences/schema.ts';
import type { Generated } from '../../resources/audiences/service.ts';
import { type CheckRules, checkContent, describeProblems, rulesFor } from './check.ts';
import { compose, passageRules } from './compose.ts';
import { allowedTopics } from './guidance.ts';
import type { PersonalizationInput } from './input.ts';
import { passagesOf } from './passages.ts';
import { type Ranked, rankPassages, relevant, standIns } from './select.ts';

/** Turns what was gathered for a version into its content. */
export interface Personalizer {
  readonly name: string;
  /**
   * Throws `UnusableAnswer` when it answered with something that cannot be used (asked again, then
   * the built-in personalizer writes the version), any other error when it cannot answer now (the
   * job tries again later).
   */
  personalize(input: PersonalizationInput): Promise<VersionContent>;
}

export class UnusableAnswer extends Error {}

/** The version cannot be written, however often it is tried: it is cancelled, with this as the reason. */
export class CannotGenerate extends Error {}

/** A personalizer whose answers fail is asked this many times in all before the built-in one steps in. */
export const MODEL_ATTEMPTS = 2;

/** How many alternatives the built-in personalizer tries for one that differs from the version before. */
const ALTERNATIVES = 4;

function sameCopy(content: VersionContent, previous: VersionContent | null): boolean {
  return (
    previous !== null &&
    content.headline === previous.headline &&
    content.subheadline === previous.subheadline &&
    content.sections.length === previous.sections.length &&
    content.sections.every(
      (section, index) =>
        section.heading === previous.sections[index]?.heading &&
        section.body === previous.sections[index]?.body,
    )
  );
}

/** The input with only the knowledge this audience's guidance allows: what every personalizer is given. */
function withAllowedKnowledge(input: PersonalizationInput): PersonalizationInput {
  return { ...input, topics: allowedTopics(input) };
}

/** The passages worth showing of the input's knowledge, most relevant first; what stands in when none is relevant. */
function rankedKnowledge(input: PersonalizationInput, rules: CheckRules): Ranked[] {
  const passages = passagesOf(input.topics, passageRules(input, rules));
  const ranked = relevant(rankPassages(input, passages));
  return ranked.length > 0 ? ranked : standIns(passages);
}

/**
 * How the built-in personalizer ranks the knowledge this audience's guidance allows, most relevant
 * first: what it chooses its sections from, and what a model is told to focus on.
 */
export function rankKnowledge(input: PersonalizationInput): Ranked[] {
  return rankedKnowledge(withAllowedKnowledge(input), rulesFor(input));
}

/**
 * The built-in personalizer's content: this version's variant, or the next ones along while they
 * read as the version before (so that generating again makes an alternative where the knowledge
 * allows one). Always the same for the same version.
 */
function selectAndCompose(given: PersonalizationInput, rules: CheckRules): VersionContent {
  const input = withAllowedKnowledge(given);
  const ranked = rankedKnowledge(input, rules);
  const { variant, previous } = input.version;
  let content = compose(input, ranked, rules, variant);
  for (let next = 1; next < ALTERNATIVES && sameCopy(content, previous); next++) {
    content = compose(input, ranked, rules, variant + next);
  }
  return content;
}

/**
 * The built-in personalizer: deterministic and offline. Select ranks the passages of the brand's
 * knowledge by relevance to the page and the audience, its guidance weighing most; compose writes
 * the page from the best of them, in their own words, leaving out everything the check would refuse.
 */
export const builtInPersonalizer: Personalizer = {
  name: 'built-in',
  async personalize(input) {
    return selectAndCompose(input, rulesFor(input));
  },
};

/** The built-in personalizer's content, checked: what fails now fails on every attempt, so it is not tried again. */
function builtInChecked(input: PersonalizationInput, rules: CheckRules): VersionContent {
  const content = selectAndCompose(input, rules);
  const problems = checkContent(content, rules);
  if (problems.length > 0)
    throw new CannotGenerate(
      `The built-in personalizer could not write a version that passes the checks: ${describeProblems(problems)}`,
    );
  return content;
}

async function answerOf(
  personalizer: Personalizer,
  input: PersonalizationInput,
  rules: CheckRules,
): Promise<{ content: VersionContent } | { reason: string }> {
  try {
    const content = await personalizer.personalize(withAllowedKnowledge(input));
    const problems = checkContent(content, rules);
    return problems.length === 0 ? { content } : { reason: describeProblems(problems) };
  } catch (error) {
    if (error instanceof UnusableAnswer) return { reason: error.message };
    throw error;
  }
}

/**
 * Generation after gathering: `personalizer` writes the content and the check stage judges it.
 * Every personalizer is given only the knowledge the audience's guidance allows. A personalizer
 * other than the built-in one is asked again when its answer is malformed or fails the
 * check, and after MODEL_ATTEMPTS the built-in personalizer writes the version, with a note of why.
 * Throws `CannotGenerate` when the built-in personalizer's content fails the check (a page whose
 * own name or button cannot be shown), any other error when a personalizer cannot answer now.
 */
export async function generateContent(
  input: PersonalizationInput,
  personalizer: Personalizer,
): Promise<Generated> {
  const rules = rulesFor(input);
  if (personalizer === builtInPersonalizer) {
    return {
      content: builtInChecked(input, rules),
      generatedBy: builtInPersonalizer.name,
      note: null,
    };
  }
  const reasons: string[] = [];
  for (let attempt = 1; attempt <= MODEL_ATTEMPTS; attempt++) {
    const answer = await answerOf(personalizer, input, rules);
    if ('content' in answer) return { content: answer.content, generatedBy: personalizer.name, note: null };
    reasons.push(answer.reason);
  }
  return {
    content: builtInChecked(input, rules),
    generatedBy: builtInPersonalizer.name,
    note: `The ${personalizer.name} personalizer's ${MODEL_ATTEMPTS} answers could not be used (${reasons.join(' | ')}); the built-in personalizer wrote this version.`,
  };
}
