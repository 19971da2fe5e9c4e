import { dictionary } from '@zxcvbn-ts/language-common';

/**
 * The most common passwords, from leaked-password lists, as shipped by @zxcvbn-ts/language-common
 * (MIT; the `passwords-common` list, about 49,000 passwords ranked by frequency, the 10,000 most
 * common among them). Installed with the project, read from disk: no download at run time.
 * Compared without case: "Password1234" is as common as "password1234".
 */
let common: ReadonlySet<string> | undefined;

export function isCommonPassword(password: string): boolean {
  common ??= new Set(dictionary['passwords-common'].map((p) => p.toLowerCase()));
  return common.has(password.toLowerCase());
}
