#!/usr/bin/perl
# Writes a program's source with every <fxt/trace.h> use removed: the include line and each
# TRACE_*(...); statement (no ';' may occur inside one). The NTRACE test compares the output
# of this "macros removed" build with the NTRACE build. Usage: strip-trace.pl IN > OUT
# SPDX-License-Identifier: MIT
use strict;
use warnings;
local $/;
my $src = <>;
$src =~ s/^[ \t]*#include <fxt\/trace\.h>\n//m;
$src =~ s/\bTRACE_[A-Z_]+\([^;]*\);//g;
die "strip-trace.pl: a TRACE_ or TA_ use is left\n" if $src =~ /\b(TRACE|TA)_[A-Z]/;
print $src;
