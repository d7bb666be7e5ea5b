// sqlite3 is only reached through @mikro-orm/sqlite, which ADK loads for a `sqlite://` session
// service URI (--session_service_uri or DATABASE_URL). The e2e and example agents run with
// `memory://`, so loading this module means something asked for a database-backed session service.
throw new Error(
  'sqlite3 is not installed in test/e2e/agent (a stand-in from its package.json "overrides" is): ' +
    'the agent runs ADK with --session_service_uri memory://; a sqlite:// session service (or DATABASE_URL) is not supported here',
)
