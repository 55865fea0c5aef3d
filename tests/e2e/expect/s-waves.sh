#!/usr/bin/env bash
# Prints the golden fxt-calls output of tests/progs/s-waves (run-prog.sh runs it): the main
# thread's calls, then 19 calls for each of the threads w-000..w-299, each under its own name.
# SPDX-License-Identifier: MIT
printf 'thread\ts-waves\t1\t2\ncall\ts-waves\t1\tmain\ncall\ts-waves\t10\twave\n'
printf 'edge\ts-waves\t1\t-\tmain\nedge\ts-waves\t10\tmain\twave\n'
for ((i = 0; i < 300; i++)); do
	printf -v t 'w-%03d' "$i"
	printf 'thread\t%s\t1\t3\n' "$t"
	printf 'call\t%s\t%s\n' "$t" "12	leaf" "$t" "6	step" "$t" "1	thread_main"
	printf 'edge\t%s\t%s\n' "$t" "1	-	thread_main" "$t" "12	step	leaf" \
		"$t" "6	thread_main	step"
done
