import type { DeclineReason } from '../../domain/index.ts';

/**
 * The bank's answer codes Lyra passes on unchanged in a refusal's `detailedErrorCode` (next to
 * `errorCode: ACQ_001`; Lyra, "errors_acq": "the code of acquirer's authorization rejection is
 * returned ... without any modifications"), labelled as Lyra's Cartes Bancaires
 * `vads_auth_result` table labels them (the same table as other French acquirers' CB answer codes:
 * 19 "retry later", 68 "reply received too late", 90 "system temporarily interrupted", 91
 * "issuer unavailable"; 1A and 65, the issuers' request for strong authentication). Lyra's page on anticipated authorisations lists the codes
 * it never retries (03, 04, 05, 07, 12-15, 31, 33, 34, 41, 43, 54, 56, 57, 59, 63, 76, 80-82):
 * none of them is a soft reason here.
 */
const BANK_CODES: Readonly<Record<string, DeclineReason>> = {
  '51': 'insufficient_funds', // insufficient balance or exceeded credit limit
  '61': 'insufficient_funds', // exceeds withdrawal amount limit
  '05': 'do_not_honour', // do not honor
  '03': 'do_not_honour', // invalid merchant
  '04': 'do_not_honour', // retain card
  '07': 'do_not_honour', // retain card, special conditions
  '57': 'do_not_honour', // transaction not permitted to the cardholder
  '59': 'do_not_honour', // suspected fraud
  '63': 'do_not_honour', // security rules violated
  '34': 'do_not_honour', // suspicion of fraud
  '62': 'do_not_honour', // restricted card
  '54': 'expired_card', // expired card
  '33': 'expired_card', // expired card (CB)
  '41': 'lost_or_stolen', // lost card
  '43': 'lost_or_stolen', // stolen card
  '1A': 'authentication_required', // additional customer authentication required (SCA)
  '65': 'authentication_required', // soft decline: authentication required (Europe)
  '91': 'try_again_later', // issuer unavailable
  '68': 'try_again_later', // answer received too late
  '19': 'try_again_later', // redo the transaction
  '90': 'try_again_later', // temporary shutdown
  '14': 'invalid_card', // invalid card number
  '15': 'invalid_card', // unknown issuer
  '56': 'invalid_card', // card absent from file
  '12': 'invalid_card', // invalid transaction
  '30': 'invalid_card', // format error
  '96': 'provider_error', // system malfunction
};

/** The reason of a Lyra refusal from its code as payreq stores it (`ACQ_001/51`, `PSP_030`). */
export function lyraDeclineReason(code: string): DeclineReason {
  const [errorCode, bankCode] = code.split('/');
  if (errorCode === 'ACQ_001') return (bankCode && BANK_CODES[bankCode]) || 'other';
  // A token Lyra no longer has (PSP_030/031) or refuses (PSP_561, PSP_607): the card is gone.
  if (errorCode === 'PSP_030' || errorCode === 'PSP_031' || errorCode === 'PSP_561' || errorCode === 'PSP_607')
    return 'invalid_card';
  if (errorCode === 'ACQ_999' || errorCode?.startsWith('PSP_') || errorCode?.startsWith('INT_'))
    return 'provider_error';
  return 'other';
}
