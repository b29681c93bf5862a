import { registerTaskClass } from "@eval/registry";

// 6 cases: below every tier's floor (10 cases, 5 held out), so it declares no tier; fence tests add them.
export default registerTaskClass("uppercase", {
  min_cases_for_promotion: {},
  min_cases: 3,
  description: "Upper-case a text file.",
});
