# bash completion for unwprof(1)                           -*- shell-script -*-
# SPDX-License-Identifier: GPL-2.0-only
#
# Works with and without the bash-completion package: its helpers are used
# when they are loaded (_filedir, _command_offset), compgen otherwise.

_unwprof_commands='record report dump-unwind shards help'

# Options of each command, then those every command takes. Options that take
# a value are completed in _unwprof_value.
_unwprof_options()
{
	case $1 in
	record)
		echo '-p --pids -t --tids -a --all-cpus -C --cpu -d --duration -F --freq --no-kernel --fp-only
			--call-graph -g --off-cpu --off-cpu-min --off-cpu-walks
			--max-shards --count-map-entries --as-root -o --output --format --no-lines --pid --tid
			--stats-json --quiet'
		;;
	report)
		echo '-i --input --pid --comm --no-kernel --sample-type --top --sort --tree --min-percent
			--folded --with-pid --with-tid --lines --diff --fail-above --fail-total --json -o --output --format'
		;;
	dump-unwind)
		echo '--json --summary --pc --debug-file --no-debuginfo --from-code'
		;;
	shards)
		echo '-p --pids --shard-rows --max-shards --json'
		;;
	esac
	echo '-v --verbose -? --help --usage -V --version'
}

# Options that take a value, as "cmd:option".
_unwprof_takes_value()
{
	case $1:$2 in
	record:-p | record:--pids | record:-d | record:--duration | record:-F | record:--freq | \
	record:--max-shards | record:--count-map-entries | record:-o | record:--output | \
	record:--format | record:-C | record:--cpu | record:--call-graph | record:-t | record:--tids | \
	record:--stats-json | record:--off-cpu-min | record:--off-cpu-walks | \
	report:-i | report:--input | report:--pid | report:--comm | report:--top | \
	report:--sample-type | \
	report:--sort | report:--min-percent | report:--diff | report:--fail-above | \
	report:-o | report:--output | report:--format | \
	dump-unwind:--pc | dump-unwind:--debug-file | \
	shards:-p | shards:--pids | shards:--shard-rows | shards:--max-shards)
		return 0
		;;
	esac
	return 1
}

# COMPREPLY from a word list, never globbed (-? would match a file "-a").
_unwprof_reply()
{
	mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur")
}

_unwprof_files()
{
	if declare -F _filedir >/dev/null; then
		_filedir
	else
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
}

# Running processes as "PID (comm)", completing the last of a comma list. A
# single match is reduced to the bare pid so that it can be inserted.
_unwprof_pids()
{
	local head= part=$cur dir pid comm
	local -a found=()

	if [[ $cur == *,* ]]; then
		head=${cur%,*},
		part=${cur##*,}
	fi
	for dir in /proc/[0-9]*; do
		pid=${dir#/proc/}
		[[ $pid == "$part"* ]] || continue
		comm=
		read -r comm 2>/dev/null <"$dir/comm"
		found+=("$head$pid ($comm)")
	done
	if ((${#found[@]} == 1)); then
		COMPREPLY=("${found[0]%% *}")
	else
		COMPREPLY=("${found[@]}")
	fi
}

# Completes the value of option $1 of command $2; returns 1 when it takes none.
_unwprof_value()
{
	local opt=$1 cmd=$2

	_unwprof_takes_value "$cmd" "$opt" || return 1
	case $opt in
	-p | --pids)
		_unwprof_pids
		;;
	--format)
		_unwprof_reply 'folded pprof svg'
		;;
	--call-graph)
		_unwprof_reply 'dwarf fp'
		;;
	--sort)
		_unwprof_reply 'self total'
		;;
	--sample-type)
		_unwprof_reply 'cpu off-cpu wall'
		;;
	-F | --freq)
		_unwprof_reply '99 499 999 4999'
		;;
	-o | --output | -i | --input | --diff | --debug-file | --stats-json)
		_unwprof_files
		;;
	*)
		COMPREPLY=()
		;;
	esac
	return 0
}

# The words of a launched command: complete them as that command's own.
_unwprof_command()
{
	local offset=$1

	if declare -F _command_offset >/dev/null; then
		_command_offset "$offset"
	elif ((COMP_CWORD == offset)); then
		mapfile -t COMPREPLY < <(compgen -c -- "$cur")
	else
		_unwprof_files
	fi
}

_unwprof()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local cmd= i word

	COMPREPLY=()
	# --opt=value: bash splits it into "--opt" "=" "value".
	if [[ $cur == = ]]; then
		cur=
	elif [[ $prev == = ]] && ((COMP_CWORD >= 2)); then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	else
		[[ $prev == --*=* ]] && prev=${prev%%=*}
	fi

	# The command is the first word that is not an option.
	for ((i = 1; i < COMP_CWORD; i++)); do
		word=${COMP_WORDS[i]}
		if [[ $word != -* ]]; then
			cmd=$word
			break
		fi
	done

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			_unwprof_reply '-v --verbose -? --help --usage -V --version'
		else
			_unwprof_reply "$_unwprof_commands"
		fi
		return 0
	fi

	if [[ $cmd == help ]]; then
		((COMP_CWORD == i + 1)) &&
			_unwprof_reply "${_unwprof_commands% help}"
		return 0
	fi

	# record: from "--" or the first argument on, the words belong to the command.
	local j skip=0
	for ((j = i + 1; j < COMP_CWORD; j++)); do
		word=${COMP_WORDS[j]}
		if ((skip)); then
			skip=0
			continue
		fi
		[[ $word == = ]] && { skip=1; continue; }
		if [[ $cmd == record && ($word == -- || $word != -*) ]]; then
			[[ $word == -- ]] && ((j++))
			_unwprof_command "$j"
			return 0
		fi
		[[ $word != *=* ]] && _unwprof_takes_value "$cmd" "$word" &&
			[[ ${COMP_WORDS[j + 1]} != = ]] && skip=1
	done

	_unwprof_value "$prev" "$cmd" && return 0

	if [[ $cur == -* ]]; then
		_unwprof_reply "$(_unwprof_options "$cmd")"
		return 0
	fi
	case $cmd in
	dump-unwind | shards)
		_unwprof_files
		;;
	record)
		_unwprof_command "$COMP_CWORD"
		;;
	esac
	return 0
} &&
	complete -F _unwprof unwprof

# ex: filetype=sh
