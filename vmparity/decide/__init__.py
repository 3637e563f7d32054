"""decide: noise, cross-run judgement, explain rules, lab figures."""
