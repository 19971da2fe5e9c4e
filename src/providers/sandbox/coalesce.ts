interface Waiting<Req, Res> {
  request: Req;
  resolve: (answer: Res) => void;
  reject: (err: unknown) => void;
}

/**
 * Calls made while the event loop is busy are answered by one call of `many`: each caller gets
 * the answer at its own position. The sandbox places the daily job's holds this way: a real
 * provider's servers take concurrent calls in parallel, while the sandbox's ledger shares the
 * service's database (with embedded PGlite, its single thread), where one statement for sixteen
 * holds costs little more than one for one. If `many` fails, every call in the group fails
 * with its error: the job counts them as technical failures and the next run tries again.
 */
export function coalesce<Req, Res>(
  many: (requests: readonly Req[]) => Promise<readonly Res[]>,
  maxGroup: number,
): (request: Req) => Promise<Res> {
  let waiting: Waiting<Req, Res>[] = [];

  const flush = () => {
    const group = waiting;
    waiting = [];
    if (group.length === 0) return;
    many(group.map((w) => w.request)).then(
      (answers) => {
        group.forEach((w, i) => {
          if (i < answers.length) w.resolve(answers[i] as Res);
          else w.reject(new Error(`coalesce: ${answers.length} answers for ${group.length} calls`));
        });
      },
      (err: unknown) => {
        for (const w of group) w.reject(err);
      },
    );
  };

  return (request) =>
    new Promise<Res>((resolve, reject) => {
      waiting.push({ request, resolve, reject });
      // setImmediate runs once the calls already under way have reached their await: the group
      // holds every call made meanwhile, and a lone call waits one turn of the loop at most.
      if (waiting.length === 1) setImmediate(flush);
      else if (waiting.length >= maxGroup) flush();
    });
}
