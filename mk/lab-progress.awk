# make lab-up's console: the lab's progress lines (`lab-progress:` messages of
# the bench role), the plays, warnings, failures and the recap with the roles'
# times; the whole Ansible stream goes to the log file lab-up names.
/"msg": "lab-progress: / {
    sub(/^[^"]*"msg": "lab-progress: /, ""); sub(/"[,]?[ \t]*$/, ""); gsub(/\\"/, "\""); print "  " $0; fflush(); next
}
/^PLAY \[/ { name = $0; sub(/^PLAY \[/, "", name); sub(/\] \**$/, "", name); print "==> " name; fflush(); next }
/^(fatal|failed): |FAILED!|^ERROR!|^\[ERROR\]|^\[WARNING\]|UNREACHABLE!|^\.\.\.ignoring/ { print; fflush(); next }
/^PLAY RECAP/ { recap = 1 }
recap { print; fflush() }
