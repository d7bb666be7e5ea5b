/**
 * The dashboard's one HTML page: a static shell; main.js fills it from the API.
 */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>evalstream</title>
<link rel="stylesheet" href="/dashboard/style.css">
<script type="module" src="/dashboard/main.js"></script>
</head>
<body>
<header>
  <h1>evalstream</h1>
  <form id="token-form" autocomplete="off">
    <label>Token <input id="token" type="password" placeholder="bearer token (if the server asks)"></label>
    <button type="submit">Use</button>
    <button type="button" id="token-clear">Forget</button>
  </form>
  <form id="filters" autocomplete="off">
    <label>App <input id="filter-app" placeholder="any app"></label>
    <label>Window <select id="filter-window">
      <option value="3600000">1 hour</option>
      <option value="86400000" selected>24 hours</option>
      <option value="604800000">7 days</option>
      <option value="2592000000">30 days</option>
    </select></label>
    <span id="tenant" class="muted"></span>
  </form>
</header>
<p id="notice" role="status" hidden></p>
<main>
  <aside>
    <h2>Sessions</h2>
    <ul id="sessions" class="sessions"><li class="muted">loading…</li></ul>
    <h2>Eval-set runs</h2>
    <ul id="runs" class="sessions runs"><li class="muted">loading…</li></ul>
  </aside>
  <section id="session-view" hidden>
    <h2 id="session-title"></h2>
    <p id="session-status"></p>
    <div class="columns">
      <div><h3>Conversation</h3><div id="conversation" class="conversation"></div></div>
      <div><h3>Scores</h3><div id="scores" class="scores"></div></div>
    </div>
  </section>
  <section id="stats-view">
    <h2>Across sessions</h2>
    <div id="stats" class="stats"><p class="muted">loading…</p></div>
  </section>
</main>
</body>
</html>
`
