import { grantAdmin } from '../../shared/src/access/admins.js';
import { api, type TestApp } from './app.js';

export const ADMIN_TEST_PW = 'Bark-and-peel-42';

/**
 * Sign up `username` and make it an administrator the way an operator does (a grant row in the
 * app's own database, as `npm run admin -- grant` writes it). Returns the account's token.
 */
export async function signupAdmin(app: TestApp, username: string, password = ADMIN_TEST_PW): Promise<{ token: string; id: string }> {
  const r = await api(app.url, 'POST', '/api/signup', { json: { username, password } });
  if (r.status !== 200) throw new Error(`signup failed: ${r.status} ${r.text}`);
  const granted = await grantAdmin(app.container.db, username, 'test');
  if (granted !== 'granted') throw new Error(`grant failed: ${granted}`);
  return { token: r.json.token, id: r.json.account.id };
}
