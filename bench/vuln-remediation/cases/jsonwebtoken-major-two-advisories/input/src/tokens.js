const jwt = require("jsonwebtoken");

// Issues and checks the short-lived API tokens.
function issue(subject, secret) {
  return jwt.sign({ sub: subject }, secret, { algorithm: "HS256", expiresIn: "5m" });
}
function check(token, secret) {
  return jwt.verify(token, secret, { algorithms: ["HS256"] }).sub;
}

module.exports = { issue, check };
