import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** An older commit checked out beside this tree, on this tree's node_modules. */
export interface ReferenceCheckout {
  dir: string;
  /** An empty directory beside it, removed with it: the drivers' TMPDIR. */
  scratch: string;
  commit: string;
  /** The commit's date, YYYY-MM-DD. */
  date: string;
  remove(): Promise<void>;
}

/**
 * Why `ref` cannot be measured from the repository at `root` (null when it can): a shallow
 * clone lacks older commits, and a commit from before the job's benchmark has no driver.
 */
export async function referenceMissing(root: string, ref: string, needs: string): Promise<string | null> {
  try {
    await run('git', ['-C', root, 'cat-file', '-e', `${ref}^{commit}`]);
  } catch {
    const shallow = await run('git', ['-C', root, 'rev-parse', '--is-shallow-repository']).then(
      (r) => r.stdout.trim() === 'true',
      () => false,
    );
    return `commit ${ref} is not in this repository's history${shallow ? ' (a shallow clone: git fetch --unshallow)' : ''}`;
  }
  try {
    await run('git', ['-C', root, 'cat-file', '-e', `${ref}:${needs}`]);
  } catch {
    return `commit ${ref} has no ${needs}`;
  }
  return null;
}

/**
 * A detached worktree of `ref` in a new temporary directory, its node_modules a link to this
 * tree's (the lock files differ a little; what the older code needs from them is checked by
 * running it). remove() takes the worktree out of git's list and deletes the directory; it
 * may be called more than once.
 */
export async function checkOutReference(root: string, ref: string): Promise<ReferenceCheckout> {
  const parent = await mkdtemp(path.join(tmpdir(), 'payreq-jobvs-'));
  const dir = path.join(parent, 'reference');
  const scratch = path.join(parent, 'tmp');
  let removed = false;
  const remove = async () => {
    if (removed) return;
    removed = true;
    await run('git', ['-C', root, 'worktree', 'remove', '--force', dir]).catch(() => undefined);
    await rm(parent, { recursive: true, force: true });
    // A worktree whose directory went first (an interrupted add) is still listed until pruned.
    await run('git', ['-C', root, 'worktree', 'prune']).catch(() => undefined);
  };
  try {
    await run('git', ['-C', root, 'worktree', 'add', '--detach', dir, ref]);
    await symlink(await realpath(path.join(root, 'node_modules')), path.join(dir, 'node_modules'));
    await mkdir(scratch);
    const shown = await run('git', ['-C', dir, 'show', '-s', '--format=%H %cs', 'HEAD']);
    const [commit = '', date = ''] = shown.stdout.trim().split(' ');
    return { dir, scratch, commit, date, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
