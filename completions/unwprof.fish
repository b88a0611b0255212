# SPDX-License-Identifier: GPL-2.0-only
# fish completion for unwprof(1)

set -l commands record report dump-unwind shards help

# Running processes as "PID<tab>comm".
function __unwprof_pids
    for pid in (string match -r '^[0-9]+$' (path basename /proc/*))
        set -l comm (cat /proc/$pid/comm 2>/dev/null)
        printf '%s\t%s\n' $pid "$comm"
    end
end

# True when the command is $argv[1].
function __unwprof_command_is
    set -l words (commandline -opc)
    for w in $words[2..-1]
        switch $w
            case '-*'
                continue
            case '*'
                test "$w" = "$argv[1]"
                return
        end
    end
    return 1
end

complete -c unwprof -f

# Options every command takes, and the commands.
complete -c unwprof -s v -l verbose -d 'More messages on stderr (repeat for more)'
complete -c unwprof -s '?' -l help -d 'Print the help'
complete -c unwprof -l usage -d 'Print a short usage message'
complete -c unwprof -s V -l version -d 'Print the version'

complete -c unwprof -n "not __fish_seen_subcommand_from $commands" -a record \
    -d 'Profile processes, the system or a command'
complete -c unwprof -n "not __fish_seen_subcommand_from $commands" -a report \
    -d 'Show a profile: top functions, call tree, folded stacks, or a diff'
complete -c unwprof -n "not __fish_seen_subcommand_from $commands" -a dump-unwind \
    -d 'Print the unwind table built for an ELF file'
complete -c unwprof -n "not __fish_seen_subcommand_from $commands" -a shards \
    -d 'Show how unwind tables pack into BPF map shards'
complete -c unwprof -n "not __fish_seen_subcommand_from $commands" -a help \
    -d 'Show the help of a command'
complete -c unwprof -n '__unwprof_command_is help' -a 'record report dump-unwind shards'

# record
set -l c '__unwprof_command_is record'
complete -c unwprof -n $c -s p -l pids -x -a '(__fish_complete_list , __unwprof_pids)' \
    -d 'Profile these processes and their threads'
complete -c unwprof -n $c -s a -l all-cpus -d 'Profile every process'
complete -c unwprof -n $c -s d -l duration -x -d 'Stop after SECONDS'
complete -c unwprof -n $c -s F -l freq -x -a '99 499 999 4999' \
    -d 'Samples per second per CPU'
complete -c unwprof -n $c -l no-kernel -d 'Leave out kernel frames'
complete -c unwprof -n $c -l fp-only -d 'Unwind with frame pointers only'
complete -c unwprof -n $c -l call-graph -x -a 'dwarf fp' -d 'As perf takes it: dwarf, or fp'
complete -c unwprof -n $c -s g -d 'Accepted for perf users: stacks are always recorded'
complete -c unwprof -n $c -s C -l cpu -x -d 'Sample only on these CPUs'
complete -c unwprof -n $c -s t -l tids -x -d 'Profile these threads only'
complete -c unwprof -n $c -l off-cpu -d 'Also record where threads block, with their stacks'
complete -c unwprof -n $c -l off-cpu-min -x -d 'Walk only blocks of USEC or more'
complete -c unwprof -n $c -l off-cpu-walks -x -d 'Walk at most N blocks a second per CPU'
complete -c unwprof -n $c -l max-shards -x -d 'Cap unwind table memory at N shards'
complete -c unwprof -n $c -l count-map-entries -x \
    -d 'Distinct stacks held in the kernel between drains'
complete -c unwprof -n $c -l as-root -d 'Under sudo, run COMMAND as root'
complete -c unwprof -n $c -s o -l output -r -F -d 'Write the profile to FILE'
complete -c unwprof -n $c -l format -x -a 'folded pprof svg' -d 'Output format'
complete -c unwprof -n $c -l no-lines -d 'Name frames by their symbols only'
complete -c unwprof -n $c -l pid -d 'Begin each stack with comm-PID'
complete -c unwprof -n $c -l tid -d 'Begin each stack with comm-PID/TID'
complete -c unwprof -n $c -l stats-json -r -F -d 'Write the run statistics as JSON to FILE'
complete -c unwprof -n $c -l quiet -d 'Do not print the summary'
# The launched command: the options that take a value are skipped with it.
complete -c unwprof -n $c -a '(__fish_complete_subcommand --fcs-skip=2 -p --pids -d --duration \
    -F --freq --max-shards --count-map-entries -o --output --format --stats-json -C --cpu -t --tids \
    --call-graph)'

# report
set -l c '__unwprof_command_is report'
complete -c unwprof -n $c -s i -l input -r -F -d 'The profile to read'
complete -c unwprof -n $c -l pid -x -d 'Only the samples of process PID'
complete -c unwprof -n $c -l comm -x -d 'Only the samples of processes or threads named NAME'
complete -c unwprof -n $c -l no-kernel -d 'Leave out kernel frames'
complete -c unwprof -n $c -l sample-type -x -a 'cpu off-cpu wall' -d 'With off-CPU samples: the time counted'
complete -c unwprof -n $c -l top -x -d 'Show N functions'
complete -c unwprof -n $c -l sort -x -a 'self total' -d 'Order of the top view'
complete -c unwprof -n $c -l tree -d 'Show the call tree'
complete -c unwprof -n $c -l min-percent -x -d 'Tree: leave out branches below PCT%'
complete -c unwprof -n $c -l folded -d 'Print folded stacks'
complete -c unwprof -n $c -l with-pid -d 'Folded: begin each stack with comm-PID'
complete -c unwprof -n $c -l with-tid -d 'Folded: begin each stack with comm-PID/TID'
complete -c unwprof -n $c -l lines -d 'By source line'
complete -c unwprof -n $c -l diff -r -F -d 'Compare the input with the profile BASE'
complete -c unwprof -n $c -l fail-above -x \
    -d 'Diff: exit 3 when a function grew by more than PCT% of the time'
complete -c unwprof -n $c -l fail-total -d 'Diff: --fail-above applies to the whole profile too'
complete -c unwprof -n $c -l json -d 'Print the view as JSON'
complete -c unwprof -n $c -s o -l output -r -F -d 'Write the profile to FILE, as its name says'
complete -c unwprof -n $c -l format -x -a 'folded pprof svg' -d '-o: output format'

# dump-unwind
set -l c '__unwprof_command_is dump-unwind'
complete -c unwprof -n $c -l json -d 'Print JSON instead of a table'
complete -c unwprof -n $c -l summary -d 'Print only the summary'
complete -c unwprof -n $c -l pc -x -d 'Print only the row governing ADDR'
complete -c unwprof -n $c -l debug-file -r -F -d 'Use PATH as the separate debug file'
complete -c unwprof -n $c -l no-debuginfo -d 'Do not look for a separate debug file'
complete -c unwprof -n $c -l from-code -d 'Derive the rows from the code alone, ignoring the CFI'
complete -c unwprof -n $c -F

# shards
set -l c '__unwprof_command_is shards'
complete -c unwprof -n $c -s p -l pids -x -a '(__fish_complete_list , __unwprof_pids)' \
    -d 'Tables of every executable mapping of these processes'
complete -c unwprof -n $c -l shard-rows -x -d 'Rows per shard'
complete -c unwprof -n $c -l max-shards -x -d 'Cap the shards at N'
complete -c unwprof -n $c -l json -d 'Print JSON instead of tables'
complete -c unwprof -n $c -F
