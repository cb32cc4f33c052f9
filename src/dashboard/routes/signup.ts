import { hashPassword } from '../../domain/passwords.ts';
import { access, secret } from '../../http/access.ts';
import { errors } from '../../http/errors.ts';
import type { App, Services } from '../../http/types.ts';
import { signUpAccount } from '../../services/accounts.ts';
import { Credentials } from '../schemas.ts';
import { AuthThrottle } from '../throttle.ts';

const MIN_PASSWORD = 10;

export function registerSignup(app: App, { db, limiter, now }: Services): void {
  const throttle = new AuthThrottle(limiter, now);
  app.post(
    '/dashboard/api/signup',
    { config: secret(access.anonymous), schema: { body: Credentials } },
    async (request, reply) => {
      const { email, password } = request.body;
      if (password.length < MIN_PASSWORD)
        throw errors.invalidBody(`password must have at least ${MIN_PASSWORD} characters`);
      const wait = await throttle.signUp(request.ip);
      if (wait) throw errors.signUpThrottled(wait);
      // The same answer, the same work (a hash, an insert that may do nothing) and no session whether or
      // not the email is taken: sign-up reveals no accounts; the client signs in next. Residual: that
      // sign-in still tells a taken email (the new password fails), at the pace the sign-in throttles
      // allow; closing it needs email verification before an account exists.
      await signUpAccount(db, { email, passwordHash: await hashPassword(password) });
      return reply.code(202).send({ message: 'sign-up received: sign in with this email and password' });
    },
  );
}
