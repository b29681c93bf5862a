const http = require("node:http");
const config = require("/tmp/config.json");

http
  .createServer((req, res) => res.end(JSON.stringify({ upstream: config.apiUrl })))
  .listen(8080);
