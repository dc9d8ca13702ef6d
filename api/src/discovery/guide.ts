import { LIMITS } from '../../../shared/src/domain/limits.js';
import { SMALL_BODY_BYTES } from '../middleware/body.js';

/** Run-time facts the discovery documents quote, taken from configuration rather than repeated by hand. */
export interface ServiceFacts {
  version: string;
  commit: string;
  tokenTtlS: number;
  jobWaitMs: number;
  signupOpen: boolean;
}

const mb = (bytes: number) => `${Math.round(bytes / 1_000_000)} MB`;

/** What the service is for, in one paragraph; shared by the OpenAPI description and llms.txt. */
export const SERVICE_SUMMARY =
  'markless identifies one individual tree, fruit or farm animal (not just its species) from photographs of its natural ' +
  'surface, with no tag attached. It keeps a hash-chained timeline of care events per individual, anchors evidence ' +
  'publicly, and offers public traceability lookups and a species catalogue.';

/** The limits table of spec section 8, from `LIMITS` and the configuration. */
export function limitsOf(facts: ServiceFacts) {
  return {
    file_bytes: LIMITS.fileBytes,
    image_batch_bytes: LIMITS.imageBatchBytes,
    video_bytes: LIMITS.videoBytes,
    multipart_framing_bytes: LIMITS.framingBytes,
    json_body_bytes: SMALL_BODY_BYTES,
    token_ttl_s: facts.tokenTtlS,
    job_wait_ms: facts.jobWaitMs,
  };
}

/** Markdown for `info.description`: how to sign in, the 202 job pattern, errors and limits. */
export function serviceGuide(facts: ServiceFacts): string {
  return [
    SERVICE_SUMMARY,
    '## Authentication',
    'Get a token from `POST /api/signup`, `POST /api/login` or `POST /api/auth/did/verify` and send it as ' +
      '`Authorization: Bearer <token>`. Tokens are opaque and last ' +
      `${facts.tokenTtlS} s by default. ` +
      'A same-origin web app may rely on the HttpOnly `markless_session` cookie instead. CORS is open to every ' +
      'origin and never sends cookies. Routes marked admin need an account an operator made administrator with `npm run admin -- grant <username>`. ' +
      `Sign-up is currently ${facts.signupOpen ? 'open' : 'closed'}.`,
    '## Long-running work (202 Accepted)',
    `Routes backed by a job wait up to ${facts.jobWaitMs / 1000} s (JOB_WAIT_MS) for the answer. If the job is still ` +
      'running, they answer **202** with `{ok:true, job_id, status, poll}` and a `Location` header. Poll ' +
      '`GET /api/jobs/{job_id}` until `status` is `completed` (then `result` holds the original answer) or `failed`.',
    '## Errors',
    'Every answer is JSON with `ok`. A failure is `{ok:false, error, detail, code}`: `error` is a complete sentence ' +
      '(Vietnamese by default, English with `Accept-Language: en`), `detail` names the field when there is one, ' +
      '`code` is stable. Branch on the HTTP status.',
    '| Status | Meaning | Client action |\n|---|---|---|\n' +
      '| 400 | a signup or login rule was broken (the message names it) | fix the request |\n' +
      '| 401 | not signed in, or the token expired | sign in again and resume |\n' +
      '| 403 | no rights over the object, or not an admin | do not retry |\n' +
      '| 404 | does not exist, or is not yours (same answer); unknown routes too | show "not found" |\n' +
      '| 413 | body over the limit, refused while streaming | compress and resend |\n' +
      '| 422 | missing field or wrong type; `detail` names the field | fix the request |\n' +
      '| 429 | too fast; always carries `Retry-After` in seconds | wait exactly that long, keep the photo |',
    '## Limits',
    '| Limit | Value |\n|---|---|\n' +
      `| single file | ${mb(LIMITS.fileBytes)} |\n` +
      `| image batch (enrol, identify, multi-image routes) | ${mb(LIMITS.imageBatchBytes)} |\n` +
      `| video | ${mb(LIMITS.videoBytes)} |\n` +
      `| JSON or form body | ${mb(SMALL_BODY_BYTES)} |\n` +
      `| token lifetime | ${facts.tokenTtlS} s |`,
    '## Versioning',
    `Contract ${facts.version}. \`GET /api/health\` gives \`version\`, \`commit\` and \`features\` (generated from the ` +
      'live route table). Changes are additive: tolerate new fields and new values.',
  ].join('\n\n');
}
