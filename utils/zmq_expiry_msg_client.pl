#!/usr/bin/perl
# zmq_expiry_msg_client.pl: a consumer of the server's 0MQ expiry push,
# written with ZMQ::FFI (Debian: libzmq-ffi-perl). It connects a PULL socket
# to each endpoint given and prints every message as one line, exactly as
# utils/zmq_expiry_msg_client (the C consumer) does; the protocol and the line
# format are described in EXPIRY_0MQ.md:
#
#   db=0 type=string key="k" value="v"
#   db=0 type=hash key="h" fields=2 "f1"="v1" "f2"="v2"
#   db=0 type=list key="l" elements=2 "a" "b"
#   db=0 type=set key="s" members=2 "a" "b"
#   db=0 type=zset key="z" members=2 "a"="1" "b"="2.5"
#
# Strings are quoted; '\' and '"' are escaped, \n \r \t too, and any other
# byte outside printable ASCII is written as \xHH, so binary data stays on one
# line. Messages that break the protocol are reported on stderr.
#
# Usage: zmq_expiry_msg_client.pl [-n COUNT] ENDPOINT...
#   -n COUNT  exit after COUNT messages (default: run until killed)
use strict;
use warnings;
use Getopt::Std;
use ZMQ::FFI;
use ZMQ::FFI::Constants qw(ZMQ_PULL);

my %opts;
getopts('n:', \%opts) && @ARGV
    or die "Usage: $0 [-n COUNT] ENDPOINT...\n"
         . "Prints each 0MQ expiry message of the server, one line per message.\n";
my $limit = defined $opts{n} ? $opts{n} : -1;

my @type_names = qw(string hash list set zset);

# Byte string -> quoted, escaped text (same rules as the C consumer).
sub quoted {
    my ($s) = @_;
    $s =~ s/([\\"])/\\$1/g;
    $s =~ s/\n/\\n/g;
    $s =~ s/\r/\\r/g;
    $s =~ s/\t/\\t/g;
    $s =~ s/([^\x20-\x7e])/sprintf("\\x%02x", ord($1))/ge;
    return "\"$s\"";
}

# Reads a native-order uint32 at $$pos of $buf; dies if the frame is short.
sub read_u32 {
    my ($buf, $pos) = @_;
    die "bad value frame\n" if length($buf) - $$pos < 4;
    my $v = unpack('L', substr($buf, $$pos, 4));
    $$pos += 4;
    return $v;
}

# Reads a length-prefixed string.
sub read_string {
    my ($buf, $pos) = @_;
    my $len = read_u32($buf, $pos);
    die "bad value frame\n" if length($buf) - $$pos < $len;
    my $s = substr($buf, $$pos, $len);
    $$pos += $len;
    return $s;
}

# Decodes one message (its frames) into a line; dies with the reason if malformed.
sub format_message {
    my @frames = @_;
    die "expected 3 frames\n" unless @frames == 3;
    die "header frame is not 4 bytes\n" unless length($frames[0]) == 4;
    my ($db, $type) = unpack('S S', $frames[0]);
    my $kpos = 0;
    my $key = eval { read_string($frames[1], \$kpos) };
    die "bad key frame\n" if !defined $key || $kpos != length($frames[1]);
    my $name = $type < @type_names ? $type_names[$type] : "unknown($type)";
    my $line = "db=$db type=$name key=" . quoted($key);

    my ($val, $pos) = ($frames[2], 0);
    if ($type == 0) {
        $line .= ' value=' . quoted(read_string($val, \$pos));
    } elsif ($type == 1 || $type == 4) {
        my $count = read_u32($val, \$pos);
        die "bad value frame\n" if $count % 2;
        $line .= sprintf(' %s=%d', $type == 1 ? 'fields' : 'members', $count / 2);
        for (my $i = 0; $i < $count; $i += 2) {
            my $f = read_string($val, \$pos);
            my $v = read_string($val, \$pos);
            $line .= ' ' . quoted($f) . '=' . quoted($v);
        }
    } elsif ($type == 2 || $type == 3) {
        my $count = read_u32($val, \$pos);
        $line .= sprintf(' %s=%d', $type == 2 ? 'elements' : 'members', $count);
        $line .= ' ' . quoted(read_string($val, \$pos)) for 1 .. $count;
    } else {
        # A type this client does not know: its size only.
        $line .= ' bytes=' . length($val);
        $pos = length($val);
    }
    die "bad value frame\n" if $pos != length($val);
    return $line;
}

$| = 1;
my $ctx = ZMQ::FFI->new();
my $sock = $ctx->socket(ZMQ_PULL);
$sock->connect($_) for @ARGV;

for (my $n = 0; $limit < 0 || $n < $limit; $n++) {
    my @frames = $sock->recv_multipart();
    my $line = eval { format_message(@frames) };
    if (defined $line) {
        print "$line\n";
    } else {
        chomp(my $err = $@);
        print STDERR "malformed message ($err)\n";
    }
}
