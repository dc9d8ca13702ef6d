/**
 * `npm run admin -- grant <username> | revoke <username> | list`
 *
 * Administrators are made only here, by an operator, on an account that already exists; each
 * grant and revoke is recorded (who, when) in `admin_grants` and the activity log, and applies to
 * the account's existing tokens at once. Runs on the service's configuration (DATABASE_URL, or
 * DATA_DIR's PGlite database; with PGlite, run it while the service is stopped).
 * Exit codes: 0 done (or nothing to change), 1 no such account, 2 usage.
 */
import os from 'node:os';
import { loadConfig } from '../../../shared/src/config/config.js';
import { openDatabase } from '../../../shared/src/container.js';
import { grantAdmin, listAdmins, revokeAdmin } from '../../../shared/src/access/admins.js';
import { renderMessage } from '../../../shared/src/domain/messages.js';

const USAGE = 'usage: npm run admin -- grant <username> | revoke <username> | list';
const [cmd, username] = process.argv.slice(2);
const valid = (cmd === 'list' && !username) || ((cmd === 'grant' || cmd === 'revoke') && username);
if (!valid) {
  console.error(USAGE);
  process.exit(2);
}
// Who acted: the operator's login on this machine, overridable for automation (ADMIN_ACTOR).
const by = process.env.ADMIN_ACTOR || `cli:${os.userInfo().username}@${os.hostname()}`;
const db = await openDatabase(loadConfig());
let code = 0;
try {
  if (cmd === 'list') {
    console.log(JSON.stringify(await listAdmins(db)));
  } else {
    const result = cmd === 'grant' ? await grantAdmin(db, username!, by) : await revokeAdmin(db, username!, by);
    console.log(JSON.stringify({ username, result, by }));
    if (result === 'no_such_account') {
      for (const lang of ['vi', 'en'] as const) console.error(renderMessage('admin_no_such_account', lang, { username }));
      code = 1;
    }
  }
} finally {
  await db.close();
}
process.exit(code);
