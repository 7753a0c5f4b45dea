import { hash, verify, type Algorithm } from '@node-rs/argon2';

/** `Algorithm.Argon2id` (a const enum, which isolated modules cannot read from a declaration file). */
const ARGON2ID = 2 as Algorithm;

/** OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane. The parameters travel in the PHC string. */
const options = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, options);
}

/** A hash of nothing anyone knows: an unknown username is verified against it, so it costs what a wrong password costs. */
let decoy: Promise<string> | undefined;

/** Whether `password` matches `stored`; with no stored hash it still spends one verification and answers false. */
export async function passwordMatches(stored: string | null, password: string): Promise<boolean> {
  if (stored === null) {
    decoy ??= hashPassword(`decoy-${Math.random()}`);
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
