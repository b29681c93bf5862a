const moment = require("moment");

// Formats an invoice date for the customer's locale.
function formatInvoiceDate(iso, locale) {
  return moment.utc(iso).locale(locale || "en").format("LL");
}

module.exports = { formatInvoiceDate };
