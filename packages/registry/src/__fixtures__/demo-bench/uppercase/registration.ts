import { registerTaskClass } from "@eval/registry";

export default registerTaskClass("uppercase", {
  min_cases_for_promotion: { bronze: 2, silver: 5 },
  min_cases: 3,
  description: "Upper-case a text file.",
});
