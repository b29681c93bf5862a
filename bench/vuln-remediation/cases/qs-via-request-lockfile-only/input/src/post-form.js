const request = require("request");

// Posts the nightly totals to the legacy accounting form.
function postTotals(url, totals, callback) {
  request.post({ url, form: totals, timeout: 10000 }, callback);
}

module.exports = { postTotals };
