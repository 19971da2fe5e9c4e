import { applyStatusChanges, type Database } from '../db/index.ts';
import { allowedFrom, targetOf } from '../domain/index.ts';

/** What the guest does to a request by themselves: open the payment page. */
export function guestCommands(db: Database) {
  return {
    /** The guest opened the payment page: NOT_INITIATED becomes PENDING, once. */
    async openForm(id: string): Promise<void> {
      await applyStatusChanges(db, [
        {
          id,
          from: allowedFrom('guest_opens_form'),
          to: targetOf('guest_opens_form'),
          actor: { source: 'guest', actor: null },
        },
      ]);
    },
  };
}

export type GuestCommands = ReturnType<typeof guestCommands>;
