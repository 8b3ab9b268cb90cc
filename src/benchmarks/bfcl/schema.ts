/** The shapes of BFCL's data files, checked where the data comes in. */
import { z } from "zod";
import { PyDict, pyRepr, type PyValue } from "./python/value.js";

const ParameterSchema = z.looseObject({ type: z.string(), description: z.string().optional() });

export const FunctionDocSchema = z.looseObject({
  name: z.string(),
  description: z.string().default(""),
  parameters: z.looseObject({
    type: z.string(),
    properties: z.record(z.string(), ParameterSchema),
    required: z.array(z.string()).default([]),
  }),
});

export const QuestionSchema = z.looseObject({
  id: z.string(),
  question: z.array(z.array(z.looseObject({ role: z.string(), content: z.string() }))),
  function: z.array(FunctionDocSchema).default([]),
});
export type Question = z.infer<typeof QuestionSchema>;

/**
 * A ground truth as the Python checker holds it: `[{fname: {param: [acceptable values]}}]`,
 * parsed from the raw text so that `5.0` stays a float.
 */
export function pyAnswers(value: PyValue, id: string): PyDict[] {
  if (!Array.isArray(value)) throw new Error(`ground_truth of ${id} is not a list`);
  return value.map((item, index) => {
    if (!(item instanceof PyDict) || item.size !== 1) throw new Error(`ground_truth[${index}] of ${id} is not {function: {param: [values]}}`);
    const params = item.first()?.[1] as PyValue;
    if (!(params instanceof PyDict)) throw new Error(`ground_truth[${index}] of ${id}: the parameters are not a dict`);
    for (const [param, options] of params.entries()) {
      if (!Array.isArray(options)) throw new Error(`ground_truth[${index}] of ${id}: ${pyRepr(param)} has no list of acceptable values`);
    }
    return item;
  });
}
