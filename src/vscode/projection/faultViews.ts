// A failed turn's error card (docs/behaviour.md#errors): the engine's facts and advice in the protocol's shape, clamped to its limits.
import { LIMITS } from '../../protocol/limits.js';
import { CATEGORY_WORDS, faultAdvice, type TurnFault } from '../../engine/provider/turnFault.js';
import type { FaultView, TranscriptItem } from '../../protocol/messages.js';

export function faultView(fault: TurnFault, turnId: string, retry: boolean): FaultView {
  const advice = faultAdvice(fault);
  return {
    turnId: turnId.slice(0, LIMITS.id),
    title: CATEGORY_WORDS[fault.category],
    ...(fault.endpoint === undefined ? {} : { endpoint: fault.endpoint.slice(0, LIMITS.label) }),
    ...(fault.status === undefined || fault.status < 100 || fault.status > 599 ? {} : { status: fault.status }),
    ...(fault.code === undefined ? {} : { code: fault.code.slice(0, LIMITS.id) }),
    message: fault.message.slice(0, LIMITS.notice),
    hint: advice.hint.slice(0, LIMITS.notice),
    ...(advice.settings === undefined ? {} : { settings: advice.settings }),
    retry,
  };
}

/** The same card once something else happened in the chat: Retry would no longer send "the failed request". */
export function withoutRetry(item: TranscriptItem): TranscriptItem | undefined {
  if (item.kind !== 'error' || item.fault?.retry !== true) return undefined;
  return { ...item, fault: { ...item.fault, retry: false } };
}
