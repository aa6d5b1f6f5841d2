/**
 * Q&A (001 §2 "/content/ask", §3 Ask, §4 Ask editor, §5, §7 /ask/*, §9 page size; issue 19):
 * shapes and input schemas shared by the server and the UI. Decisions: docs/content.md "Q&A".
 */
import { z } from 'zod';
import { flag, id, int, INT_MAX, text } from './fields.js';

/** 001 §9: ask 20 per page. */
export const ASK_PAGE = 20;
export const ASK_LIMIT_MAX = 100;
/** Answers one save may carry (and ids one del_list may name). */
export const ASK_MAX_ANSWERS = 200;
export const ASK_QUESTION_MAX = 20_000;
export const ASK_ANSWER_MAX = 20_000;

/** 001 §5 (question and answer required) and the not-found message (not in the spec). */
export const ASK_MSG = {
  questionRequired: 'question is required',
  answerRequired: 'answer is required',
  notFound: 'Ask not found',
  saveOk: 'Save ok!',
  foreignAnswer: (id: number) => `answer ${id} does not belong to this question`,
} as const;

export interface AskAnswer { Id: number; answer: string }
export interface AskRow { Id: number; question: string; answers: number }
export interface AskView { Id: number; question: string; answer?: AskAnswer[] }

/** GET /ask/list: `page` (1-based), `limit` (20), `getCount` (answer the total too; default 1). */
export const AskListQuery = z.object({
  page: int(1, INT_MAX, 'page').optional(),
  limit: int(1, ASK_LIMIT_MAX, 'limit').optional(),
  getCount: flag('getCount').optional(),
});
export const AskGetQuery = z.object({ joinAnswer: flag('joinAnswer').optional() });

const question = text('question', ASK_QUESTION_MAX, { multiline: true, min: 1 });
/** One answer row of a save: new without Id; `del` (the delete mark) drops it on save. */
export const AskAnswerInput = z.object({
  Id: id('Id').optional(),
  answer: text('answer', ASK_ANSWER_MAX, { multiline: true }),
  del: flag('del').optional(),
}).superRefine((a, ctx) => {
  if (!a.del && a.answer === '') ctx.addIssue({ code: 'custom', path: ['answer'], message: ASK_MSG.answerRequired });
});
/** POST /ask/set (001 §7): {ask: {question, Id?}, answer: [...], del_list: [answer ids]}; answers {Id}. */
export const AskSetArgs = z.object({
  ask: z.object({ Id: id('Id').optional(), question }, { error: 'ask must be an object {question, Id?}' }),
  answer: z.array(AskAnswerInput, { error: 'answer must be a list' }).max(ASK_MAX_ANSWERS, `answer has at most ${ASK_MAX_ANSWERS} items`).optional(),
  del_list: z.array(id('del_list'), { error: 'del_list must be a list of answer ids' }).max(ASK_MAX_ANSWERS, `del_list has at most ${ASK_MAX_ANSWERS} items`).optional(),
});
export type AskSetInput = z.input<typeof AskSetArgs>;
