import type { Container } from '../../../shared/src/container.js';
import { AppError } from '../../../shared/src/domain/errors.js';
import type { JobHandler } from '../../../shared/src/domain/jobs.js';
import { ModelRefusedError, registerModel } from '../recognition/model-lifecycle.js';

/** Register a candidate model (POST /api/admin/models): a refusal is final (422 with its reason), never retried. */
export function modelRegisterHandler(c: Container): JobHandler<'model_register'> {
  return async (data) => {
    try {
      const r = await registerModel(c, data.dir, data.shadow_share);
      return { model: `${r.name}@${r.version}`, status: 'shadow', shadow_share: r.shadow_share, reembedded: r.reembedded };
    } catch (e) {
      if (e instanceof ModelRefusedError) throw new AppError(422, 'model_refused', { reason: e.reason });
      throw e;
    }
  };
}
