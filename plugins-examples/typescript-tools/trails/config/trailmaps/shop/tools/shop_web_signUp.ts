import { trailblaze } from "@trailblaze/scripting";

export interface SignUpArgs {
  /** Who signs up. */
  name: string;
  /** Where to write to them. */
  email: string;
  /**
   * The plan, as the form names it.
   * @default "Free"
   */
  plan?: "Free" | "Pro" | "Team";
}

/**
 * Sign up through the sample app's contact form and check the plan it confirms.
 */
export const shop_web_signUp = trailblaze.tool<SignUpArgs>(
  { supportedPlatforms: ["web"] },
  async ({ name, email, plan = "Free" }, ctx) => {
    await ctx.tools.web_navigate({ url: "/forms.html" });
    await ctx.tools.web_type({ ref: "css=#name", text: name });
    await ctx.tools.web_type({ ref: "css=#email", text: email });
    await ctx.tools.web_selectOption({ ref: "css=#plan", values: [plan] });
    await ctx.tools.web_click({ ref: "css=#submit" });
    await ctx.tools.shop_checkPlan({ plan }); // a Python plugin's tool, run as the built-ins are
    return `${name} signed up for ${plan}`;
  },
);
