import { generateKey } from '../domain/keys.ts';
import { type KeyMode, keyQuotaProblem, type Plan, type Scope, scopeProblem } from '../domain/plans.ts';
import {
  type ApiKey,
  countActiveKeys,
  createUser,
  EmailTakenError,
  getUser,
  insertKey,
  insertUserUnlessTaken,
  type User,
} from '../store/accounts.ts';
import type { Db } from '../store/db.ts';
import { ServiceError } from './errors.ts';

export async function createAccount(
  db: Db,
  input: { email: string; plan: Plan; isAdmin?: boolean; passwordHash?: string | null },
): Promise<User> {
  try {
    return await createUser(db, {
      email: input.email.trim(),
      plan: input.plan,
      isAdmin: input.isAdmin ?? false,
      passwordHash: input.passwordHash ?? null,
    });
  } catch (error) {
    if (error instanceof EmailTakenError) throw new ServiceError('conflict', error.message);
    throw error;
  }
}

/**
 * A self-service sign-up: a free account with this password unless the email is taken. Same work and
 * same outcome for the caller either way (the password is hashed before), so it reveals no accounts.
 */
export async function signUpAccount(db: Db, input: { email: string; passwordHash: string }): Promise<void> {
  await insertUserUnlessTaken(db, {
    email: input.email.trim(),
    plan: 'free',
    passwordHash: input.passwordHash,
  });
}

/**
 * Issues a key within the plan's rules (live keys only where the plan allows, key maxima, admin scope
 * only for admins). The raw key is returned here and never again.
 */
export async function issueKey(
  db: Db,
  input: { userId: string; name: string; scopes: Scope[]; mode: KeyMode },
): Promise<{ key: ApiKey; secret: string }> {
  const user = await getUser(db, input.userId);
  if (!user) throw new ServiceError('not_found', `user not found: ${input.userId}`);
  const scopes = [...new Set(input.scopes)];
  const scopeIssue = scopeProblem(scopes, user.is_admin);
  if (scopeIssue) throw new ServiceError(scopes.length ? 'forbidden' : 'invalid', scopeIssue, 'scopes');
  const generated = generateKey(input.mode);
  const key = await db.transaction(async (tx) => {
    const active = await countActiveKeys(tx, user.id, input.mode);
    const quotaIssue = keyQuotaProblem(user.plan, input.mode, active);
    if (quotaIssue) throw new ServiceError('forbidden', quotaIssue);
    return insertKey(tx, { userId: user.id, name: input.name, mode: input.mode, scopes, key: generated });
  });
  return { key, secret: generated.raw };
}
