// A room of its own, pure and light: the configuration reads DATABASE_URL into a location at
// every start (`payreq --help` included) without loading the database's door and its engines;
// the database opens the location it is given.
export { type DatabaseLocation, parseDatabaseUrl } from './database-url.ts';
