"""The lab's own contracts that the Ansible and Make layers call: the round
schedule, merging round files into result files, the run's noise figures."""
