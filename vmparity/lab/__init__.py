"""The lab's own contracts that the Ansible and Make layers call: the variant
files (variants, with schema_file), the repro plan, the domain XML, the round
schedule and the merge of round files into result files, the run's noise
figures. `vmparity lab …` (vmparity.commands.lab) exposes them as commands."""
