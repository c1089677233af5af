import type { VersionContent } from '../../resources/audiences/schema.ts';
import type { Generated } from '../../resources/audiences/service.ts';
import { type CheckRules, checkContent, describeProblems, MAX_SECTIONS, rulesFor } from './check.ts';
import { compose } from './compose.ts';
import type { PersonalizationInput } from './input.ts';
import { selectTopics } from './select.ts';

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

/** A personalizer whose answers fail is asked this many times in all before the built-in one steps in. */
export const MODEL_ATTEMPTS = 2;

function selectAndCompose(input: PersonalizationInput, rules: CheckRules): VersionContent {
  return compose(input, selectTopics(input, MAX_SECTIONS), rules);
}

/**
 * The built-in personalizer: deterministic and offline. Select ranks the brand's topic entries by
 * relevance to the page and the audience; compose lays them out for the page type in sentences
 * that fit the audience, leaving out every sentence the check would refuse.
 */
export const builtInPersonalizer: Personalizer = {
  name: 'built-in',
  async personalize(input) {
    return selectAndCompose(input, rulesFor(input));
  },
};

function checked(content: VersionContent, rules: CheckRules, by: string): VersionContent {
  const problems = checkContent(content, rules);
  if (problems.length > 0)
    throw new Error(
      `The ${by} personalizer wrote content that fails the checks: ${describeProblems(problems)}`,
    );
  return content;
}

async function answerOf(
  personalizer: Personalizer,
  input: PersonalizationInput,
  rules: CheckRules,
): Promise<{ content: VersionContent } | { reason: string }> {
  try {
    const content = await personalizer.personalize(input);
    const problems = checkContent(content, rules);
    return problems.length === 0 ? { content } : { reason: describeProblems(problems) };
  } catch (error) {
    if (error instanceof UnusableAnswer) return { reason: error.message };
    throw error;
  }
}

/**
 * Generation after gathering: `personalizer` writes the content and the check stage judges it. A
 * personalizer other than the built-in one is asked again when its answer is malformed or fails the
 * check, and after MODEL_ATTEMPTS the built-in personalizer writes the version, with a note of why.
 */
export async function generateContent(
  input: PersonalizationInput,
  personalizer: Personalizer,
): Promise<Generated> {
  const rules = rulesFor(input);
  if (personalizer === builtInPersonalizer) {
    return {
      content: checked(selectAndCompose(input, rules), rules, 'built-in'),
      generatedBy: 'built-in',
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
    content: checked(selectAndCompose(input, rules), rules, 'built-in'),
    generatedBy: builtInPersonalizer.name,
    note: `The ${personalizer.name} personalizer's ${MODEL_ATTEMPTS} answers could not be used (${reasons.join(' | ')}); the built-in personalizer wrote this version.`,
  };
}
