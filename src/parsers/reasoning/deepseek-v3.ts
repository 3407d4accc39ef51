/**
 * DeepSeek V3.x (`deepseek_v3`): R1-style reasoning when the request enables
 * thinking (`chat_template_kwargs.thinking` or `enable_thinking` truthy),
 * otherwise no reasoning at all (everything is content).
 */
import { DEEPSEEK_R1_FORMAT } from './deepseek-r1';
import { IdentityMachine, TagReasoningMachine, pyTruthy } from './machine';
import type { ReasoningOptions } from './types';

export const deepseekV3 = (o: ReasoningOptions) => {
  const kw = o.chatTemplateKwargs ?? {};
  const thinking = pyTruthy(kw.thinking) || pyTruthy(kw.enable_thinking);
  return thinking ? new TagReasoningMachine(o, DEEPSEEK_R1_FORMAT) : new IdentityMachine(o);
};
