# Table 1 of the granularity paper: configuration counts C(m, k) of frontier MoEs.
# Usage: gnuplot -e "csv='results/routing_table1.csv'; png='results/routing_table1.png'" plots/routing_table1.gp
# CSV columns: model,experts,active,sparsity_percent,printed_sparsity_percent,configurations,log10_configurations,required_c_vs_reference
if (!exists("csv")) csv = 'results/routing_table1.csv'
if (!exists("png")) png = 'results/routing_table1.png'

set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1400,650 enhanced font ",11"
} else {
  set terminal png size 1200,600
}
set output png
set datafile separator comma
set datafile columnheaders
set title "Table 1 (granularity paper): expert configurations C(m, k) of frontier MoEs"
set grid ytics
set style fill solid 0.6
set boxwidth 0.6
set yrange [0:18.5]
set ylabel "log_{10} C(m, k)"
set xtics rotate by -25 font ",10"
set key off
plot csv using 0:7:xtic(1) with boxes lc rgb "#1f77b4", \
     csv using 0:7:(sprintf("%d of %d\nC = %.3g\nsparsity %g%%\n(printed %g%%)", $3, $2, $6, $4, $5)) with labels offset 0, 3.3 font ",9"
