import { createRequire } from 'node:module';

/**
 * The most common passwords, from leaked-password lists, as shipped by @zxcvbn-ts/language-common
 * (MIT; the `passwords-common` list, about 49,000 passwords ranked by frequency, the 10,000 most
 * common among them). Installed with the project, read from disk: no download at run time.
 * Compared without case: "Password1234" is as common as "password1234". The package (all of its
 * dictionaries, ~18 MB resident) is loaded when a password is first checked, not by every process
 * that imports this module's room: the daily job and the other commands never check one.
 */
let common: ReadonlySet<string> | undefined;

export function isCommonPassword(password: string): boolean {
  common ??= new Set(loadDictionary()['passwords-common'].map((p) => p.toLowerCase()));
  return common.has(password.toLowerCase());
}

function loadDictionary(): typeof import('@zxcvbn-ts/language-common').dictionary {
  const pkg = createRequire(import.meta.url)(
    '@zxcvbn-ts/language-common',
  ) as typeof import('@zxcvbn-ts/language-common');
  return pkg.dictionary;
}
