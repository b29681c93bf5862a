const _ = require("lodash");

// Groups orders by customer for the monthly statement.
function byCustomer(orders) {
  return _.groupBy(orders, "customerId");
}

module.exports = { byCustomer };
