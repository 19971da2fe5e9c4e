import { randomBytes } from 'node:crypto';

/**
 * What the Apaleo fake holds: custom apps (client id and secret), properties, reservations,
 * folios with their payments and refunds, webhook subscriptions. Shapes as Apaleo's own
 * (sources in apaleo-fake.ts); anything the fake adds says so.
 */

export interface FakeMoney {
  amount: number;
  currency: string;
}

export interface FakeReservation {
  id: string;
  propertyId: string;
  status: 'Confirmed' | 'InHouse' | 'CheckedOut' | 'Canceled' | 'NoShow';
  arrival: string;
  departure: string;
  primaryGuest: {
    firstName?: string;
    lastName: string;
    email?: string;
    preferredLanguage?: string;
  };
  totalGrossAmount: FakeMoney;
  balance: FakeMoney;
  /** One gross amount per night. */
  nights: FakeMoney[];
}

export interface FakeFolioEntry {
  id: string;
  method: string;
  amount: FakeMoney;
  receipt: string;
  businessDate: string;
  paymentDate: string;
  /** The Idempotency-Key it was created under, if any (the fake's own bookkeeping). */
  idempotencyKey: string | null;
}

export interface FakeFolio {
  id: string;
  reservationId: string;
  propertyId: string;
  type: 'Guest' | 'House' | 'External' | 'Booking';
  isMainFolio: boolean;
  status: 'Open' | 'Closed' | 'ClosedWithInvoice';
  currency: string;
  payments: FakeFolioEntry[];
  refunds: FakeFolioEntry[];
  /** Refunds asked of Apaleo's own payment provider (`…/payments/{id}/refunds`): payreq must never. */
  pspRefunds: { paymentId: string; body: unknown }[];
}

export interface FakeSubscription {
  id: string;
  endpointUrl: string;
  events: string[];
  propertyIds: string[];
}

export function apaleoStore() {
  const clients = new Map<string, string>();
  const properties = new Map<string, { id: string; name: string; currencyCode: string }>();
  const reservations = new Map<string, FakeReservation>();
  const folios: FakeFolio[] = [];
  const subscriptions = new Map<string, FakeSubscription>();
  /** Live tokens, each with the client it was issued to. */
  const tokens = new Map<string, string>();
  let issued = 0;
  const newId = (prefix: string) => `${prefix}${randomBytes(4).toString('hex').toUpperCase()}`;

  return {
    clients,
    properties,
    reservations,
    folios,
    subscriptions,
    tokens,
    /** Tokens issued so far. */
    issued: () => issued,
    addClient(id: string, secret: string) {
      clients.set(id, secret);
    },
    addProperty(id: string, name = `Hotel ${id}`, currencyCode = 'EUR') {
      properties.set(id, { id, name, currencyCode });
    },
    /** A reservation, with its main guest folio unless `folio: false`. */
    addReservation(
      r: Partial<FakeReservation> & { id: string; propertyId: string },
      opts: { folio?: boolean } = {},
    ): FakeReservation {
      const currency = r.totalGrossAmount?.currency ?? 'EUR';
      const full: FakeReservation = {
        status: 'Confirmed',
        arrival: '2026-12-24',
        departure: '2026-12-27',
        primaryGuest: {
          firstName: 'Jeanne',
          lastName: 'Martin',
          email: 'jeanne.martin@example.com',
          preferredLanguage: 'fr',
        },
        totalGrossAmount: { amount: 360, currency },
        balance: { amount: 0, currency },
        nights: [
          { amount: 120, currency },
          { amount: 120, currency },
          { amount: 120, currency },
        ],
        ...r,
      };
      reservations.set(full.id, full);
      if (opts.folio !== false) this.addFolio({ reservationId: full.id, isMainFolio: true });
      return full;
    },
    addFolio(f: Partial<FakeFolio> & { reservationId: string }): FakeFolio {
      const reservation = reservations.get(f.reservationId);
      const folio: FakeFolio = {
        id: `${f.reservationId}-${folios.filter((x) => x.reservationId === f.reservationId).length + 1}`,
        propertyId: reservation?.propertyId ?? '',
        type: 'Guest',
        isMainFolio: false,
        status: 'Open',
        currency: reservation?.totalGrossAmount.currency ?? 'EUR',
        payments: [],
        refunds: [],
        pspRefunds: [],
        ...f,
      };
      folios.push(folio);
      return folio;
    },
    /** Puts a folio first in the list Apaleo answers (the main folio must be found wherever it is). */
    listFirst(folio: FakeFolio) {
      folios.splice(folios.indexOf(folio), 1);
      folios.unshift(folio);
    },
    folio: (id: string) => folios.find((f) => f.id === id),
    mainFolio: (reservationId: string) =>
      folios.find((f) => f.reservationId === reservationId && f.type === 'Guest' && f.isMainFolio),
    issueToken(clientId: string): string {
      issued++;
      const token = `fake-${randomBytes(16).toString('hex')}`;
      tokens.set(token, clientId);
      return token;
    },
    /** Every token issued so far stops working (401), as when the app's secret was rotated. */
    revokeAllTokens() {
      tokens.clear();
    },
    newId,
  };
}
export type ApaleoStore = ReturnType<typeof apaleoStore>;
