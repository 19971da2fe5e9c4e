/**
 * A SECRET_KEY as `openssl rand -base64 48` makes one: production refuses guessable keys
 * (64 × "s" included), so tests that run as production use this one.
 */
export const PRODUCTION_SECRET_KEY = 's+XDP0vQaWcgmH/lHVr54/V+EYKDmscbSKu9fu4MZY3vgk3xjTFutZz3jUtFSp8A';
