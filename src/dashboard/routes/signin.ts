import { hashPassword, verifyPassword } from '../../domain/passwords.ts';
import { access, secret } from '../../http/access.ts';
import { ApiError, errors } from '../../http/errors.ts';
import type { App, Services } from '../../http/types.ts';
import { getUser, passwordHashOf } from '../../store/accounts.ts';
import { Credentials } from '../schemas.ts';
import { openSession, sessionCookie } from '../sessions.ts';
import { AuthThrottle } from '../throttle.ts';

/** Throttled sign-in with one message for every failure; success opens a session (cookie and CSRF token). */
export function registerSignin(app: App, { db, limiter, now }: Services): void {
  const throttle = new AuthThrottle(limiter, now);
  app.post(
    '/dashboard/api/signin',
    { config: secret(access.anonymous), schema: { body: Credentials } },
    async (request, reply) => {
      const { email, password } = request.body;
      const wait = await throttle.signIn(request.ip, email);
      if (wait) throw errors.signInThrottled(wait);
      const found = await passwordHashOf(db, email);
      // Hash even for unknown addresses, so timing does not tell them apart.
      const ok = found?.hash
        ? await verifyPassword(password, found.hash)
        : await hashPassword(password).then(() => false);
      if (!found || !ok) throw new ApiError('unauthorized', 'invalid email or password');
      await throttle.signedIn(request.ip, email);
      const user = await getUser(db, found.id);
      const { token, csrfToken } = await openSession(db, found.id, now());
      reply.header('set-cookie', sessionCookie(token, request.protocol === 'https'));
      return { user, csrf_token: csrfToken };
    },
  );
}
