import { dropPostgresDatabase, makePgliteTemplate, makePostgresTemplate } from './database-template.ts';

// scripts/run-tests.mjs runs this once per engine, before and after the test files:
//   make pglite DIR      prints the archive's path
//   make postgres        prints the template database's name (server: TEST_POSTGRES_URL)
//   drop postgres NAME
const [action, engine, arg] = process.argv.slice(2);
const server = process.env.TEST_POSTGRES_URL ?? '';
if (action === 'make' && engine === 'pglite' && arg) {
  console.log(await makePgliteTemplate(arg));
} else if (action === 'make' && engine === 'postgres' && server) {
  console.log(await makePostgresTemplate(server));
} else if (action === 'drop' && engine === 'postgres' && server && arg) {
  await dropPostgresDatabase(server, arg);
} else {
  console.error('usage: make pglite DIR | make postgres | drop postgres NAME (TEST_POSTGRES_URL for postgres)');
  process.exit(2);
}
